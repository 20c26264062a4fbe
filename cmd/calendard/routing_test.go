package main

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

func TestRouting(t *testing.T) {
	s := startServer(t)
	id := s.create("/calendar/events/v1/events", concert())
	_ = id
	tests := []struct {
		name       string
		r          req
		wantStatus int
		wantAllow  string
	}{
		{"plain", req{method: "GET", path: "/calendar/events/v1/events/1"}, 200, "GET"},
		{"trailing slash", req{method: "GET", path: "/calendar/events/v1/events/1/"}, 200, "GET"},
		{"case-insensitive literals", req{method: "GET", path: "/Calendar/EVENTS/v1/Events/1"}, 200, "GET"},
		{"leading zeros", req{method: "GET", path: "/calendar/events/v1/events/001"}, 200, "GET"},
		{"language prefix", req{method: "GET", path: "/fr/calendar/events/v1/events/1"}, 200, "GET"},
		{"admin sees every method", req{method: "GET", path: "/calendar/events/v1/events/1", auth: adminAuth}, 200, "GET, DELETE, POST, PUT, PATCH"},
		{"slug keeps case then normalises", req{method: "GET", path: "/calendar/events/v1/events/by-slug/Jazz%20Night"}, 200, "GET"},
		{"unknown prefix", req{method: "GET", path: "/xx/calendar/events/v1/events/1"}, 404, ""},
		{"signed id", req{method: "GET", path: "/calendar/events/v1/events/+1"}, 404, ""},
		{"negative id", req{method: "GET", path: "/calendar/events/v1/events/-1"}, 404, ""},
		{"letters", req{method: "GET", path: "/calendar/events/v1/events/abc"}, 404, ""},
		{"empty slug", req{method: "GET", path: "/calendar/events/v1/events/by-slug/"}, 404, ""},
		{"unknown route", req{method: "GET", path: "/calendar/events/v1/nothing"}, 404, ""},
		{"wrong method is 404 with Allow", req{method: "PUT", path: "/calendar/events/v1/events"}, 404, "GET, POST"},
		{"categories have no slug route", req{method: "GET", path: "/calendar/events/v1/categories/by-slug/x"}, 404, ""},
		{"root", req{method: "GET", path: "/"}, 200, "GET"},
		{"root under a prefix", req{method: "GET", path: "/de/"}, 200, "GET"},
		{"root under a prefix without its slash", req{method: "GET", path: "/de"}, 200, "GET"},
		{"root HEAD", req{method: "HEAD", path: "/nl"}, 200, "GET"},
		{"root OPTIONS", req{method: "OPTIONS", path: "/"}, 200, "GET"},
		{"root wrong method", req{method: "POST", path: "/"}, 404, "GET"},
		{"a method no route has", req{method: "FOO", path: "/calendar/events/v1/events/1"}, 404, "GET, DELETE, POST, PUT, PATCH"},
		{"methods are case-sensitive", req{method: "get", path: "/calendar/events/v1/events"}, 404, "GET, POST"},
		{"TRACE on the root", req{method: "TRACE", path: "/"}, 404, "GET"},
		{"a method no route has, on no route", req{method: "FOO", path: "/calendar/events/v1/nothing"}, 404, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := s.do(tc.r)
			if res.status != tc.wantStatus {
				t.Fatalf("status %d, want %d: %s", res.status, tc.wantStatus, res.body)
			}
			if tc.wantStatus == 404 && res.json(t)["code"] != "rest_no_route" {
				t.Errorf("code = %v", res.json(t)["code"])
			}
			if got := res.header.Get("Allow"); got != tc.wantAllow {
				t.Errorf("Allow = %q, want %q", got, tc.wantAllow)
			}
			if ct := res.header.Get("Content-Type"); ct != "application/json; charset=UTF-8" {
				t.Errorf("Content-Type = %q", ct)
			}
			if !strings.HasSuffix(res.header.Get("Link"), `/>; rel="https://api.w.org/"`) {
				t.Errorf("Link = %q", res.header.Get("Link"))
			}
		})
	}
}

// TestHeadMatchesGet: HEAD answers with GET's status and headers, Content-Length included, for a
// record, a list (larger than net/http's buffer), a term, an error and the discovery routes (1.5).
func TestHeadMatchesGet(t *testing.T) {
	s := startServer(t)
	s.create("/calendar/events/v1/events", concert())
	for _, path := range []string{"/calendar/events/v1/events/1", "/calendar/events/v1/events", "/calendar/events/v1/categories",
		"/calendar/events/v1/events/999", "/calendar/events/v1", "/"} {
		get, head := s.do(req{method: "GET", path: path}), s.do(req{method: "HEAD", path: path})
		if head.status != get.status || len(head.body) != 0 {
			t.Errorf("HEAD %s: %d with %d bytes, GET %d", path, head.status, len(head.body), get.status)
		}
		if got := get.header.Get("Content-Length"); got != strconv.Itoa(len(get.body)) {
			t.Errorf("GET %s: Content-Length %q for %d bytes", path, got, len(get.body))
		}
		get.header.Del("Date")
		head.header.Del("Date")
		if !reflect.DeepEqual(head.header, get.header) {
			t.Errorf("HEAD %s headers\n%v\nGET\n%v", path, head.header, get.header)
		}
	}
}

func TestLinksFollowTheLanguagePrefix(t *testing.T) {
	s := startServer(t)
	s.create("/calendar/events/v1/events", concert())
	res := s.do(req{method: "GET", path: "/de/calendar/events/v1/events/1"})
	if got := res.header.Get("Link"); got != "<"+testOrigin+`/de/>; rel="https://api.w.org/"` {
		t.Errorf("Link = %q", got)
	}
	// Term URLs keep the request's prefix; record URLs use the record's language (docs/API.md "Responses").
	body := res.json(t)
	if got := body["rest_url"]; got != testOrigin+"/calendar/events/v1/events/1" {
		t.Errorf("rest_url = %v", got)
	}
	cat := body["categories"].([]any)[0].(map[string]any)
	if got := cat["urls"].(map[string]any)["self"].(string); !strings.HasPrefix(got, testOrigin+"/de/calendar/events/v1/categories/") {
		t.Errorf("term self = %v", got)
	}
}

func TestOptionsDescribesTheRoute(t *testing.T) {
	s := startServer(t)
	res := s.do(req{method: "OPTIONS", path: "/calendar/events/v1/events"})
	if res.status != 200 || res.header.Get("Allow") != "GET" {
		t.Fatalf("OPTIONS: %d Allow %q", res.status, res.header.Get("Allow"))
	}
	golden(t, "options_events", res.body)
}

func TestMethodOverride(t *testing.T) {
	s := startServer(t)
	s.create("/calendar/events/v1/events", concert())
	res := s.do(req{method: "POST", path: "/calendar/events/v1/events/1?_method=DELETE", auth: adminAuth})
	if res.status != 200 || res.json(t)["status"] != "trash" {
		t.Fatalf("_method=DELETE: %d %s", res.status, res.body)
	}
	res = s.do(req{method: "POST", path: "/calendar/events/v1/events/1", auth: adminAuth, body: map[string]any{"status": "draft"},
		header: map[string]string{"X-HTTP-Method-Override": "PATCH"}})
	if res.status != 200 || res.json(t)["status"] != "draft" {
		t.Fatalf("override PATCH: %d %s", res.status, res.body)
	}
}

// TestCORS: every Origin is echoed, but only a trusted one gets credentials, on a preflight as on
// the request itself (docs/API.md "Responses"). Trusted origins are compared canonically (ParseOrigin).
func TestCORS(t *testing.T) {
	s := startServer(t, "CALENDAR_CORS_TRUSTED_ORIGINS=https://App.example:443, http://admin.example:8080")
	tests := []struct {
		name, method, origin string
		wantCredentials      string
	}{
		{"trusted", "GET", "https://app.example", "true"},
		{"trusted preflight", "OPTIONS", "https://app.example", "true"},
		{"second trusted", "GET", "http://admin.example:8080", "true"},
		{"untrusted", "GET", "https://evil.example", ""},
		{"untrusted preflight", "OPTIONS", "https://evil.example", ""},
		{"trusted host on another port", "GET", "http://admin.example", ""},
		{"trusted host on another scheme", "GET", "http://app.example", ""},
		{"null", "GET", "null", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := s.do(req{method: tc.method, path: "/calendar/events/v1/events", header: map[string]string{
				"Origin": tc.origin, "Access-Control-Request-Method": "POST"}})
			if res.status != 200 {
				t.Fatalf("status %d, want 200\n%s", res.status, res.body)
			}
			want := map[string]string{
				"Access-Control-Allow-Origin":      tc.origin,
				"Access-Control-Allow-Credentials": tc.wantCredentials,
				"Access-Control-Allow-Methods":     "OPTIONS, GET, POST, PUT, PATCH, DELETE",
				"Access-Control-Allow-Headers":     "Authorization, Content-Type, If-None-Match, X-HTTP-Method-Override, X-Calendar-Min-Revision",
				"Access-Control-Expose-Headers":    "X-TEC-Total, X-TEC-TotalPages, X-Calendar-Search, X-Calendar-Revision, Link, ETag, Retry-After, Location",
				"Vary":                             "Origin",
			}
			for k, v := range want {
				if got := res.header.Get(k); got != v {
					t.Errorf("%s = %q, want %q", k, got, v)
				}
			}
		})
	}
}

func TestLimits(t *testing.T) {
	s := startServer(t, "CALENDAR_MAX_BODY_BYTES=200")
	big := `{"title":"` + strings.Repeat("x", 300) + `"}`
	res := s.do(req{method: "POST", path: "/calendar/events/v1/events", auth: adminAuth, body: big, contentType: "application/json"})
	if res.status != http.StatusRequestEntityTooLarge || res.json(t)["code"] != "rest_request_too_large" {
		t.Fatalf("big body: %d %s", res.status, res.body)
	}
	// Request line and headers: 64 KiB pass, one byte more is 431 (10.1).
	for size, want := range map[int]int{64 << 10: http.StatusNotFound, 64<<10 + 1: http.StatusRequestHeaderFieldsTooLarge} {
		if got := rawStatus(t, s, size); got != want {
			t.Errorf("request line and headers of %d bytes: %d, want %d", size, got, want)
		}
	}
	deep := strings.Repeat("[", 40) + strings.Repeat("]", 40)
	res = s.do(req{method: "POST", path: "/calendar/events/v1/events", auth: adminAuth, body: `{"a":` + deep + `}`, contentType: "application/json"})
	if res.status != 400 || res.json(t)["code"] != "rest_invalid_json" {
		t.Fatalf("deep json: %d %s", res.status, res.body)
	}
}

// rawStatus sends a GET of an unknown event whose request line and headers are exactly size bytes, and
// returns the status of the answer.
func rawStatus(t *testing.T, s *server, size int) int {
	t.Helper()
	conn, err := net.Dial("tcp", s.ts.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	head := "GET /calendar/events/v1/events/999 HTTP/1.1\r\nHost: x\r\nX-Pad: "
	const end = "\r\n\r\n"
	if _, err := io.WriteString(conn, head+strings.Repeat("p", size-len(head)-len(end))+end); err != nil {
		t.Fatal(err)
	}
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res.StatusCode
}

func TestFormBodies(t *testing.T) {
	s := startServer(t)
	form := "title=Form+Event&start_date=2030-02-01+10:00&end_date=2030-02-01+12:00&tags[]=a&tags[]=b&venue[venue]=Hall&organizer=&featured=yes"
	res := s.do(req{method: "POST", path: "/calendar/events/v1/events", auth: adminAuth, body: form, contentType: "application/x-www-form-urlencoded"})
	if res.status != 201 {
		t.Fatalf("form create: %d %s", res.status, res.body)
	}
	body := res.json(t)
	if body["title"] != "Form Event" || len(body["tags"].([]any)) != 2 || body["featured"] != true {
		t.Errorf("form fields: %v %v %v", body["title"], body["tags"], body["featured"])
	}
	if v, ok := body["venue"].(map[string]any); !ok || v["venue"] != "Hall" {
		t.Errorf("inline venue from brackets: %v", body["venue"])
	}
	// Query parameters are a source too, below the body.
	res = s.do(req{method: "POST", path: "/calendar/events/v1/events?title=FromQuery&start_date=2030-01-01&end_date=2030-01-01", auth: adminAuth,
		body: map[string]any{"title": "FromBody"}})
	if res.status != 201 || res.json(t)["title"] != "FromBody" {
		t.Fatalf("precedence: %d %s", res.status, res.body)
	}
	// A multipart body that never closes cannot be read: rest_invalid_json with its data (2.2).
	res = s.do(req{method: "PATCH", path: "/calendar/events/v1/events/1", auth: adminAuth,
		body: "--XX\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\nUnclosed", contentType: "multipart/form-data; boundary=XX"})
	data, _ := res.json(t)["data"].(map[string]any)
	if res.status != 400 || res.json(t)["code"] != "rest_invalid_json" || data["json_error_code"] != float64(4) || data["json_error_message"] == nil {
		t.Errorf("unclosed multipart: %d %s", res.status, res.body)
	}
}

func TestFieldsFilter(t *testing.T) {
	s := startServer(t)
	s.create("/calendar/events/v1/events", concert())
	res := s.do(req{method: "GET", path: "/calendar/events/v1/events/1?_fields=id,title,venue.city,nope"})
	if res.status != 200 {
		t.Fatalf("%d %s", res.status, res.body)
	}
	if got, want := string(res.body), `{"id":1,"title":"Jazz Night","venue":{"city":"Paris"}}`; got != want {
		t.Errorf("body = %s, want %s", got, want)
	}
}
