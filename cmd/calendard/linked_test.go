package main

import (
	"testing"

	"github.com/calendard/calendard/storage"
)

// TestLinkedData covers docs/API.md "Event fields" and the write rules of 7.6 that event writes enforce.
func TestLinkedData(t *testing.T) {
	s := startServer(t)
	contributor := s.user("carl", storage.RoleContributor)
	author := s.user("ava", storage.RoleAuthor)
	editor := s.user("eve", storage.RoleEditor)

	hall := s.create("/calendar/events/v1/venues", map[string]any{"venue": "Hall"})
	trashed := s.create("/calendar/events/v1/venues", map[string]any{"venue": "Old Hall"})
	s.do(req{method: "DELETE", path: "/calendar/events/v1/venues/" + utoa(trashed), auth: adminAuth})
	french := s.create("/fr/calendar/events/v1/venues", map[string]any{"venue": "Salle"})
	draftVenue := s.do(req{method: "POST", path: "/calendar/events/v1/venues", auth: editor, body: map[string]any{"venue": "Secret", "status": "draft"}}).json(t)["id"].(float64)
	orgA := s.create("/calendar/events/v1/organizers", map[string]any{"organizer": "A"})
	orgB := s.create("/calendar/events/v1/organizers", map[string]any{"organizer": "B"})

	event := func(extra map[string]any) map[string]any {
		b := map[string]any{"title": "E", "start_date": "2030-01-01 10:00", "end_date": "2030-01-01 11:00"}
		for k, v := range extra {
			b[k] = v
		}
		return b
	}
	tests := []struct {
		name       string
		auth       string
		body       map[string]any
		wantStatus int
		wantCode   string
		check      func(t *testing.T, body map[string]any)
	}{
		{"venue by id", adminAuth, event(map[string]any{"venue": hall}), 201, "", func(t *testing.T, b map[string]any) {
			if b["venue"].(map[string]any)["id"] != float64(hall) {
				t.Errorf("venue %v", b["venue"])
			}
		}},
		{"venue as numeric string in a one-element array", adminAuth, event(map[string]any{"venue": []any{utoa(hall)}}), 201, "", nil},
		{"venue object with id", adminAuth, event(map[string]any{"venue": map[string]any{"id": hall, "venue": "ignored"}}), 201, "", nil},
		{"no venue", adminAuth, event(map[string]any{"venue": "0"}), 201, "", func(t *testing.T, b map[string]any) {
			if v, ok := b["venue"].([]any); !ok || len(v) != 0 {
				t.Errorf("venue %v, want []", b["venue"])
			}
		}},
		{"trashed venue", adminAuth, event(map[string]any{"venue": trashed}), 400, "invalid-linked-post-id", nil},
		{"venue of another language", adminAuth, event(map[string]any{"venue": french}), 400, "invalid-linked-post-id", nil},
		{"another user's draft venue", contributor, event(map[string]any{"venue": draftVenue}), 400, "invalid-linked-post-id", nil},
		{"inline venue without a name", adminAuth, event(map[string]any{"venue": map[string]any{"city": "Paris"}}), 400, "rest_invalid_param", nil},
		{"organizers keep order and drop repeats", adminAuth, event(map[string]any{"organizer": utoa(orgB) + "," + utoa(orgA) + "," + utoa(orgB)}), 201, "", func(t *testing.T, b map[string]any) {
			orgs := b["organizer"].([]any)
			if len(orgs) != 2 || orgs[0].(map[string]any)["id"] != float64(orgB) {
				t.Errorf("organizers %v", orgs)
			}
		}},
		{"unknown organizer", adminAuth, event(map[string]any{"organizer": []any{9999}}), 400, "rest_invalid_param", nil},
		{"inline organizer created as draft for a contributor", contributor, event(map[string]any{"organizer": map[string]any{"organizer": "New Org"}}), 201, "", func(t *testing.T, b map[string]any) {
			if st := b["organizer"].([]any)[0].(map[string]any)["status"]; st != "draft" {
				t.Errorf("inline organizer status %v", st)
			}
		}},
		{"terms by id and name", adminAuth, event(map[string]any{"tags": []any{"rock", 9999}}), 201, "", func(t *testing.T, b map[string]any) {
			if tags := b["tags"].([]any); len(tags) != 1 || tags[0].(map[string]any)["name"] != "rock" {
				t.Errorf("tags %v", tags)
			}
		}},
		{"author set to self", author, event(map[string]any{"author": 3}), 201, "", nil},
		{"author set to another user", author, event(map[string]any{"author": 1}), 403, "rest_cannot_edit_others", nil},
		{"author unknown", adminAuth, event(map[string]any{"author": 999}), 400, "rest_invalid_param", nil},
		{"image by url needs upload_files", contributor, event(map[string]any{"image": "https://img.example/a.png"}), 400, "rest_invalid_param", nil},
		{"image by url reused", author, event(map[string]any{"image": "https://img.example/a.png"}), 201, "", nil},
		{"contributor names are filtered", contributor, event(map[string]any{"title": "<b>Bold</b> x", "description": "<script>alert(1)</script><p onclick=\"x\">ok</p>"}), 201, "", func(t *testing.T, b map[string]any) {
			if b["title"] != "Bold x" || b["description"] != "<p>ok</p>" {
				t.Errorf("title %q description %q", b["title"], b["description"])
			}
		}},
		{"subscriber cannot create", s.user("sue", storage.RoleSubscriber), event(nil), 403, "rest_forbidden", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := s.do(req{method: "POST", path: "/calendar/events/v1/events", auth: tc.auth, body: tc.body})
			if res.status != tc.wantStatus {
				t.Fatalf("status %d, want %d: %s", res.status, tc.wantStatus, res.body)
			}
			body := res.json(t)
			if tc.wantCode != "" && body["code"] != tc.wantCode {
				t.Errorf("code %v, want %s", body["code"], tc.wantCode)
			}
			if tc.check != nil {
				tc.check(t, body)
			}
		})
	}
}

// TestEventRecordPermissions checks the record-level rules on event writes, by ID and by slug (the
// reference only checks the generic capability on slug routes).
func TestEventRecordPermissions(t *testing.T) {
	s := startServer(t)
	carl := s.user("carl", storage.RoleContributor)
	dora := s.user("dora", storage.RoleContributor)
	draft := s.do(req{method: "POST", path: "/calendar/events/v1/events", auth: carl,
		body: map[string]any{"title": "Carl's draft", "start_date": "2030-01-01", "end_date": "2030-01-01"}}).json(t)
	id := utoa(uint64(draft["id"].(float64)))
	tests := []struct {
		name       string
		r          req
		wantStatus int
	}{
		{"owner reads own draft", req{method: "GET", path: "/calendar/events/v1/events/" + id, auth: carl}, 200},
		{"other contributor cannot read", req{method: "GET", path: "/calendar/events/v1/events/" + id, auth: dora}, 403},
		{"other contributor cannot update by slug", req{method: "PATCH", path: "/calendar/events/v1/events/by-slug/carls-draft", auth: dora, body: map[string]any{"title": "x"}}, 403},
		{"other contributor cannot delete", req{method: "DELETE", path: "/calendar/events/v1/events/" + id, auth: dora}, 403},
		{"owner updates", req{method: "PATCH", path: "/calendar/events/v1/events/by-slug/carls-draft", auth: carl, body: map[string]any{"excerpt": "x"}}, 200},
		{"admin publishes", req{method: "PATCH", path: "/calendar/events/v1/events/" + id, auth: adminAuth, body: map[string]any{"status": "publish"}}, 200},
		{"owner cannot edit once published", req{method: "PATCH", path: "/calendar/events/v1/events/" + id, auth: carl, body: map[string]any{"title": "y"}}, 403},
		{"anyone reads it now", req{method: "GET", path: "/calendar/events/v1/events/" + id}, 200},
	}
	for _, tc := range tests {
		res := s.do(tc.r)
		if res.status != tc.wantStatus {
			t.Errorf("%s: status %d, want %d: %s", tc.name, res.status, tc.wantStatus, res.body)
		}
	}
}
