package main

import (
	"strings"
	"testing"
)

func TestDiscoveryDocuments(t *testing.T) {
	s := startServer(t)
	for _, tc := range []struct{ path, golden string }{
		{"/calendar/events/v1", "discovery_index"},
		{"/calendar/events/v1/doc", "discovery_doc"},
		{"/", "discovery_root"},
	} {
		res := s.do(req{method: "GET", path: tc.path})
		if res.status != 200 {
			t.Fatalf("%s: %d %s", tc.path, res.status, res.body)
		}
		golden(t, tc.golden, res.body)
	}
	if res := s.do(req{method: "GET", path: "/calendar/events/v1?namespace=wp/v2"}); res.status != 404 || res.json(t)["code"] != "rest_invalid_namespace" {
		t.Errorf("other namespace: %d %s", res.status, res.body)
	}
}

// TestDiscoveryInTwoLanguages: the language sites differ only in parameter descriptions (SEED).
func TestDiscoveryInTwoLanguages(t *testing.T) {
	s := startServer(t)
	for _, path := range []string{"/calendar/events/v1", "/calendar/events/v1/doc"} {
		en := s.do(req{method: "GET", path: path}).json(t)
		de := s.do(req{method: "GET", path: "/de" + path}).json(t)
		var diffs int
		var walk func(where string, a, b any)
		walk = func(where string, a, b any) {
			switch a := a.(type) {
			case map[string]any:
				bm, ok := b.(map[string]any)
				if !ok || len(a) != len(bm) {
					t.Fatalf("%s %s: structure differs", path, where)
				}
				for k, v := range a {
					walk(where+"."+k, v, bm[k])
				}
			case []any:
				bl, ok := b.([]any)
				if !ok || len(a) != len(bl) {
					t.Fatalf("%s %s: structure differs", path, where)
				}
				for i := range a {
					walk(where, a[i], bl[i])
				}
			default:
				if a == b {
					return
				}
				switch {
				case strings.HasSuffix(where, ".description"):
					diffs++
				case strings.Contains(toJSON(t, a), testOrigin):
					// URLs carry the /de prefix
				default:
					t.Errorf("%s %s: %v in English, %v in German", path, where, a, b)
				}
			}
		}
		walk("", en, de)
		if diffs == 0 {
			t.Errorf("%s: no description differs between English and German", path)
		}
	}
}
