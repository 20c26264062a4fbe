package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
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

// openAPIFile is the OpenAPI document kept in the repository for readers who have no server running.
const openAPIFile = "../../docs/openapi.json"

// TestOpenAPIFileIsCurrent: docs/openapi.json is what `calendard doc` prints, the document GET
// {ns}/doc answers, so the file in the repository never describes another API (make golden rewrites
// it); and the command's document is the server's.
func TestOpenAPIFileIsCurrent(t *testing.T) {
	var out bytes.Buffer
	env := map[string]string{"CALENDAR_BASE_URL": "https://calendar.example"}
	if err := run(context.Background(), []string{"doc"}, func(k string) string { return env[k] }, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile(openAPIFile, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	kept, err := os.ReadFile(openAPIFile)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(kept, out.Bytes()) {
		t.Errorf("%s is not what calendard doc prints: make golden rewrites it", openAPIFile)
	}
	s := startServer(t, "CALENDAR_BASE_URL=https://calendar.example")
	var served, printed any
	if err := json.Unmarshal(s.do(req{method: "GET", path: "/calendar/events/v1/doc"}).body, &served); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(out.Bytes(), &printed); err != nil {
		t.Fatal(err)
	}
	if toJSON(t, served) != toJSON(t, printed) {
		t.Errorf("calendard doc differs from GET /doc")
	}
}
