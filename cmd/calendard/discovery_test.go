package main

import "testing"

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
