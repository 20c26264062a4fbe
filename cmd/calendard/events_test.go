package main

import (
	"net/http"
	"strings"
	"testing"

	"github.com/calendard/calendard/storage"
)

// concert is a full event body used by several tests.
func concert() map[string]any {
	return map[string]any{
		"title":       "Jazz Night",
		"description": "A great\n\nconcert",
		"excerpt":     "Short",
		"start_date":  "2030-05-01 20:00:00",
		"end_date":    "2030-05-01 22:00:00",
		"timezone":    "Europe/Paris",
		"venue":       map[string]any{"venue": "Salle Pleyel", "city": "Paris", "country": "France", "geo_lat": 48.8, "geo_lng": 2.3},
		"organizer":   []any{map[string]any{"organizer": "Org A", "email": "a@example.org", "website": "https://org.example"}},
		"categories":  "Music,Jazz",
		"tags":        []any{"live"},
		"cost":        []any{"0$", "20$", "30$"},
		"image":       "https://img.example/a.JPG",
		"featured":    true,
	}
}

func TestEventCreateAndGet(t *testing.T) {
	s := startServer(t)
	res := s.do(req{method: "POST", path: "/calendar/events/v1/events", auth: adminAuth, body: concert()})
	if res.status != http.StatusCreated {
		t.Fatalf("create: %d %s", res.status, res.body)
	}
	if got := res.header.Get("Location"); got != testOrigin+"/calendar/events/v1/events/1" {
		t.Errorf("Location = %q", got)
	}
	golden(t, "event_create", res.body)

	res = s.do(req{method: "GET", path: "/calendar/events/v1/events/1"})
	if res.status != http.StatusOK {
		t.Fatalf("get: %d %s", res.status, res.body)
	}
	golden(t, "event_get", res.body)
	etag := res.header.Get("ETag")
	if !strings.HasPrefix(etag, `"`) || res.header.Get("Vary") == "" {
		t.Errorf("ETag %q, Vary %q", etag, res.header.Get("Vary"))
	}
	if got := s.do(req{method: "GET", path: "/calendar/events/v1/events/1", header: map[string]string{"If-None-Match": "W/" + etag}}); got.status != http.StatusNotModified || len(got.body) != 0 {
		t.Errorf("If-None-Match: %d %q", got.status, got.body)
	}
	if got := s.do(req{method: "GET", path: "/calendar/events/v1/events/by-slug/JAZZ-night"}); got.status != http.StatusOK || string(got.body) != string(res.body) {
		t.Errorf("by slug: %d", got.status)
	}
	if got := s.do(req{method: "HEAD", path: "/calendar/events/v1/events/1"}); got.status != http.StatusOK || len(got.body) != 0 || got.header.Get("ETag") != etag {
		t.Errorf("HEAD: %d %q", got.status, got.body)
	}
}

func TestEventErrors(t *testing.T) {
	s := startServer(t)
	event := s.create("/calendar/events/v1/events", concert())
	venue := "/calendar/events/v1/events/2" // the inline venue took ID 2 after the event
	draft := s.create("/calendar/events/v1/events", map[string]any{"title": "Draft", "status": "draft",
		"start_date": "2030-01-01 10:00", "end_date": "2030-01-01 11:00"})
	_ = event
	tests := []struct {
		name       string
		r          req
		wantStatus int
		wantCode   string
		golden     string
	}{
		{"missing fields", req{method: "POST", path: "/calendar/events/v1/events", auth: adminAuth, body: map[string]any{"title": "x"}},
			400, "rest_missing_callback_param", "event_missing"},
		{"anonymous missing fields is 400 first", req{method: "POST", path: "/calendar/events/v1/events", body: map[string]any{}},
			400, "rest_missing_callback_param", ""},
		{"anonymous create", req{method: "POST", path: "/calendar/events/v1/events", body: map[string]any{"title": "x", "start_date": "tomorrow", "end_date": "tomorrow"}},
			401, "rest_forbidden", ""},
		{"invalid params reported together", req{method: "POST", path: "/calendar/events/v1/events", auth: adminAuth,
			body: map[string]any{"title": strings.Repeat("x", 1001), "start_date": "someday", "end_date": "2030-01-01", "all_day": "maybe", "status": "gone"}},
			400, "rest_invalid_param", "event_invalid"},
		{"null is absent", req{method: "POST", path: "/calendar/events/v1/events", auth: adminAuth, body: map[string]any{"title": nil, "start_date": "2030-01-01", "end_date": "2030-01-01"}},
			400, "rest_missing_callback_param", ""},
		{"malformed json", req{method: "POST", path: "/calendar/events/v1/events", auth: adminAuth, body: `{"title":`, contentType: "application/json"},
			400, "rest_invalid_json", "event_bad_json"},
		{"non-object json", req{method: "POST", path: "/calendar/events/v1/events", auth: adminAuth, body: `[1,2]`, contentType: "application/json"},
			400, "rest_invalid_json", ""},
		{"unknown id", req{method: "GET", path: "/calendar/events/v1/events/999"}, 404, "rest-event-not-found", "event_not_found"},
		{"huge id", req{method: "GET", path: "/calendar/events/v1/events/99999999999999999999"}, 404, "rest-event-not-found", ""},
		{"venue id on event route", req{method: "GET", path: venue}, 400, "rest-invalid-event-id", ""},
		{"draft hidden from anonymous", req{method: "GET", path: "/calendar/events/v1/events/" + utoa(draft)}, 403, "event-not-accessible", ""},
		{"unknown slug", req{method: "GET", path: "/calendar/events/v1/events/by-slug/nope"}, 400, "rest_invalid_param", ""},
		{"unknown slug update", req{method: "PATCH", path: "/calendar/events/v1/events/by-slug/nope", auth: adminAuth, body: map[string]any{}}, 400, "rest_invalid_param", ""},
		{"update unknown id as admin", req{method: "PUT", path: "/calendar/events/v1/events/999", auth: adminAuth, body: map[string]any{}}, 404, "rest-event-not-found", ""},
		{"update unknown id anonymous", req{method: "PUT", path: "/calendar/events/v1/events/999", body: map[string]any{}}, 401, "rest_forbidden", ""},
		{"delete venue id", req{method: "DELETE", path: venue, auth: adminAuth}, 400, "rest-invalid-event-id", ""},
		{"trash on create", req{method: "POST", path: "/calendar/events/v1/events", auth: adminAuth,
			body: map[string]any{"title": "x", "start_date": "2030-01-01", "end_date": "2030-01-01", "status": "trash"}}, 400, "rest_invalid_param", ""},
		{"bad image", req{method: "POST", path: "/calendar/events/v1/events", auth: adminAuth,
			body: map[string]any{"title": "x", "start_date": "2030-01-01", "end_date": "2030-01-01", "image": "https://x.example/a.txt"}}, 400, "rest_invalid_param", ""},
		{"image id of an event", req{method: "POST", path: "/calendar/events/v1/events", auth: adminAuth,
			body: map[string]any{"title": "x", "start_date": "2030-01-01", "end_date": "2030-01-01", "image": 1}}, 400, "rest_invalid_param", ""},
		{"two venues", req{method: "POST", path: "/calendar/events/v1/events", auth: adminAuth,
			body: map[string]any{"title": "x", "start_date": "2030-01-01", "end_date": "2030-01-01", "venue": []any{2, 2}}}, 400, "rest_invalid_param", ""},
		{"unknown venue id", req{method: "POST", path: "/calendar/events/v1/events", auth: adminAuth,
			body: map[string]any{"title": "x", "start_date": "2030-01-01", "end_date": "2030-01-01", "venue": 999}}, 400, "rest_invalid_param", ""},
		{"bad timezone", req{method: "POST", path: "/calendar/events/v1/events", auth: adminAuth,
			body: map[string]any{"title": "x", "start_date": "2030-01-01", "end_date": "2030-01-01", "timezone": "Mars/Olympus"}}, 400, "rest_invalid_param", ""},
		{"bad language", req{method: "GET", path: "/calendar/events/v1/events/1?translation_language=xx"}, 400, "rest_invalid_param", ""},
		{"wrong credentials", req{method: "GET", path: "/calendar/events/v1/events/1", auth: "admin:wrongwrongwrongwrongwron"}, 401, "incorrect_password", "auth_incorrect_password"},
		{"unknown user", req{method: "GET", path: "/calendar/events/v1/events/1", auth: "nobody:AdminPassword0123456789a"}, 401, "invalid_username", ""},
		{"unknown email", req{method: "GET", path: "/calendar/events/v1/events/1", auth: "no@body.org:AdminPassword0123456789a"}, 401, "invalid_email", ""},
		{"malformed basic", req{method: "GET", path: "/calendar/events/v1/events/1", auth: "Basic !!!"}, 401, "invalid_username", ""},
		{"bad bearer", req{method: "GET", path: "/calendar/events/v1/events/1", auth: "Bearer nope"}, 401, "invalid_token", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := s.do(tc.r)
			if res.status != tc.wantStatus {
				t.Fatalf("status %d, want %d\n%s", res.status, tc.wantStatus, res.body)
			}
			body := res.json(t)
			if body["code"] != tc.wantCode {
				t.Errorf("code %v, want %s", body["code"], tc.wantCode)
			}
			if data, _ := body["data"].(map[string]any); data["status"] != float64(tc.wantStatus) {
				t.Errorf("data.status = %v", data["status"])
			}
			if tc.wantStatus == 401 && !strings.Contains(res.header.Get("WWW-Authenticate"), "Basic") {
				t.Errorf("401 without WWW-Authenticate")
			}
			if tc.golden != "" {
				golden(t, tc.golden, res.body)
			}
		})
	}
}

func TestEventUpdateIsPartial(t *testing.T) {
	s := startServer(t)
	created := s.do(req{method: "POST", path: "/calendar/events/v1/events", auth: adminAuth, body: concert()})
	before := created.json(t)
	path := "/calendar/events/v1/events/" + utoa(uint64(before["id"].(float64)))

	res := s.do(req{method: "PATCH", path: path, auth: adminAuth, body: map[string]any{"title": "Jazz Night II"}})
	if res.status != http.StatusOK {
		t.Fatalf("update: %d %s", res.status, res.body)
	}
	after := res.json(t)
	for _, key := range []string{"featured", "cost", "image", "organizer", "venue", "timezone", "start_date", "categories", "slug", "excerpt"} {
		if toJSON(t, before[key]) != toJSON(t, after[key]) {
			t.Errorf("%s changed: %v -> %v", key, before[key], after[key])
		}
	}
	if after["title"] != "Jazz Night II" {
		t.Errorf("title = %v", after["title"])
	}

	// An update that changes nothing leaves modified alone; PUT and POST are the same partial update.
	for _, m := range []string{"PUT", "POST"} {
		if res := s.do(req{method: m, path: path, auth: adminAuth, body: map[string]any{"unknown": 1}}); res.status != 200 {
			t.Fatalf("%s: %d %s", m, res.status, res.body)
		}
	}

	// Clearing: "" and [] remove values; the venue link goes with "".
	res = s.do(req{method: "PATCH", path: path, auth: adminAuth, body: map[string]any{
		"venue": "", "organizer": []any{}, "categories": "", "cost": "", "image": "", "website": "", "description": "", "timezone": ""}})
	if res.status != http.StatusOK {
		t.Fatalf("clear: %d %s", res.status, res.body)
	}
	golden(t, "event_cleared", res.body)
}

func TestEventTrashAndRestore(t *testing.T) {
	s := startServer(t)
	id := s.create("/calendar/events/v1/events", concert())
	path := "/calendar/events/v1/events/" + utoa(id)
	res := s.do(req{method: "DELETE", path: path, auth: adminAuth})
	if res.status != http.StatusOK || res.json(t)["status"] != "trash" {
		t.Fatalf("delete: %d %s", res.status, res.body)
	}
	if res := s.do(req{method: "DELETE", path: path, auth: adminAuth}); res.status != http.StatusGone || res.json(t)["code"] != "event-is-in-trash" {
		t.Fatalf("second delete: %d %s", res.status, res.body)
	}
	if res := s.do(req{method: "GET", path: path, auth: adminAuth}); res.status != 403 || res.json(t)["code"] != "event-no-longer-available" {
		t.Fatalf("get trashed: %d %s", res.status, res.body)
	}
	// The slug no longer blocks: a new event takes it, and the trashed one is still found by slug
	// only when no live record has it.
	other := s.create("/calendar/events/v1/events", concert())
	if got := s.do(req{method: "GET", path: "/calendar/events/v1/events/" + utoa(other)}).json(t)["slug"]; got != "jazz-night" {
		t.Errorf("new event slug = %v", got)
	}
	res = s.do(req{method: "PATCH", path: path, auth: adminAuth, body: map[string]any{"status": "publish"}})
	if res.status != 200 {
		t.Fatalf("restore: %d %s", res.status, res.body)
	}
	if got := res.json(t); got["status"] != "publish" || got["slug"] != "jazz-night-2" {
		t.Errorf("restored: status %v slug %v", got["status"], got["slug"])
	}
}

func TestEventStatusRules(t *testing.T) {
	s := startServer(t)
	contributor := s.user("carl", storage.RoleContributor)
	body := func(extra map[string]any) map[string]any {
		b := map[string]any{"title": "T", "start_date": "2030-01-01 10:00", "end_date": "2030-01-01 12:00"}
		for k, v := range extra {
			b[k] = v
		}
		return b
	}
	tests := []struct {
		name, auth string
		body       map[string]any
		want       string
	}{
		{"admin default", adminAuth, body(nil), "publish"},
		{"contributor default", contributor, body(nil), "draft"},
		{"contributor publish scaled back", contributor, body(map[string]any{"status": "publish"}), "pending"},
		{"contributor private scaled back", contributor, body(map[string]any{"status": "private"}), "pending"},
		{"future date publishes later", adminAuth, body(map[string]any{"date": "2027-01-01 00:00:00"}), "future"},
		{"future in the past is publish", adminAuth, body(map[string]any{"status": "future", "date_utc": "2020-01-01 00:00:00"}), "publish"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := s.do(req{method: "POST", path: "/calendar/events/v1/events", auth: tc.auth, body: tc.body})
			if res.status != 201 {
				t.Fatalf("%d %s", res.status, res.body)
			}
			if got := res.json(t)["status"]; got != tc.want {
				t.Errorf("status = %v, want %s", got, tc.want)
			}
		})
	}
}

func TestEventPersistsAcrossRestart(t *testing.T) {
	s := startServer(t)
	id := s.create("/calendar/events/v1/events", concert())
	path := "/calendar/events/v1/events/" + utoa(id)
	before := s.do(req{method: "GET", path: path})
	s = s.restart()
	after := s.do(req{method: "GET", path: path})
	if after.status != 200 || string(after.body) != string(before.body) {
		t.Fatalf("after restart: %d\n%s\nwant\n%s", after.status, after.body, before.body)
	}
}

// TestEventTimezoneForms: the zone forms docs/API.md "Event fields" accepts from clients, and the fractional hours
// it does not.
func TestEventTimezoneForms(t *testing.T) {
	s := startServer(t)
	for zone, want := range map[string]string{
		"UTC+5.5": "UTC+5.5", "UTC-3:30": "UTC-3:30", "UTC+05": "UTC+05", "utc-9": "UTC-9", "UTC": "UTC", "Asia/Kathmandu": "Asia/Kathmandu",
		"UTC+5.75": "", "UTC+5.25": "", "UTC+5.0": "", "UTC+5.50": "",
	} {
		res := s.do(req{method: "POST", path: "/calendar/events/v1/events", auth: adminAuth,
			body: map[string]any{"title": "Zone " + zone, "start_date": "2030-01-01 10:00", "end_date": "2030-01-01 11:00", "timezone": zone}})
		switch {
		case want == "" && (res.status != 400 || res.json(t)["code"] != "rest_invalid_param"):
			t.Errorf("timezone %q: %d %s, want 400 rest_invalid_param", zone, res.status, res.body)
		case want != "" && (res.status != 201 || res.json(t)["timezone"] != want):
			t.Errorf("timezone %q: %d %s, want 201 with %q", zone, res.status, res.body, want)
		}
	}
}
