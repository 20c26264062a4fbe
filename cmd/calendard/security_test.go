package main

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/calendard/calendard/storage"
)

// TestCrossSiteWrites is the header matrix of docs/API.md "Authentication and permissions": a write a browser sends from another site
// in a form that needs no preflight is refused with 403 rest_cross_site_request and has no effect,
// whoever's credentials it carries; every other request goes through. The effect is read from the
// change log, which every write that changes a record appends to, so an allowed case proves that
// the same request would have had one.
func TestCrossSiteWrites(t *testing.T) {
	const (
		evil    = "https://evil.example"
		trusted = "https://app.example"
		form    = "application/x-www-form-urlencoded"
		// query carries a whole event: a body the service does not read leaves its parameters there.
		query = "?title=Query+Event&start_date=2030-02-01+10:00&end_date=2030-02-01+12:00"
	)
	s := startServer(t, "CALENDAR_CORS_TRUSTED_ORIGINS="+trusted+",http://other.example")
	formBody := "title=Form+Event&start_date=2030-02-01+10:00&end_date=2030-02-01+12:00"
	multipartBody := "--XX\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\nMultipart Event\r\n" +
		"--XX\r\nContent-Disposition: form-data; name=\"start_date\"\r\n\r\n2030-02-01 10:00\r\n" +
		"--XX\r\nContent-Disposition: form-data; name=\"end_date\"\r\n\r\n2030-02-01 12:00\r\n--XX--\r\n"
	jsonBody := map[string]any{"title": "JSON Event", "start_date": "2030-02-01 10:00", "end_date": "2030-02-01 12:00"}
	// one is the path of a fresh event, created for the case that names it.
	const events, one = "/calendar/events/v1/events", "/calendar/events/v1/events/{id}"

	tests := []struct {
		name         string
		method, path string
		contentType  string
		body         any
		auth         string            // adminAuth unless set
		header       map[string]string // Origin, Sec-Fetch-Site, overrides
		wantStatus   int
	}{
		// Refused: from another site, with a body that needs no preflight.
		{name: "cross-site form create with admin credentials", method: "POST", path: events, contentType: form, body: formBody,
			header: map[string]string{"Origin": evil, "Sec-Fetch-Site": "cross-site"}, wantStatus: 403},
		{name: "text/plain simple fetch", method: "POST", path: events + query, contentType: "text/plain;charset=UTF-8", body: `{"title":"x"}`,
			header: map[string]string{"Origin": evil, "Sec-Fetch-Site": "cross-site"}, wantStatus: 403},
		{name: "no content type", method: "POST", path: events + query,
			header: map[string]string{"Origin": evil, "Sec-Fetch-Site": "cross-site"}, wantStatus: 403},
		{name: "multipart, essence in capitals", method: "POST", path: events, contentType: "Multipart/Form-Data; boundary=XX", body: multipartBody,
			header: map[string]string{"Origin": evil, "Sec-Fetch-Site": "cross-site"}, wantStatus: 403},
		{name: "same-site form", method: "POST", path: events, contentType: form, body: formBody,
			header: map[string]string{"Origin": "http://www.cal.test", "Sec-Fetch-Site": "same-site"}, wantStatus: 403},
		{name: "old browser: another origin, no Sec-Fetch-Site", method: "POST", path: events, contentType: form, body: formBody,
			header: map[string]string{"Origin": evil}, wantStatus: 403},
		{name: "old browser: own host on another port", method: "POST", path: events, contentType: form, body: formBody,
			header: map[string]string{"Origin": "http://cal.test:8080"}, wantStatus: 403},
		{name: "Origin null (sandboxed page)", method: "POST", path: events, contentType: form, body: formBody,
			header: map[string]string{"Origin": "null"}, wantStatus: 403},
		{name: "Origin null with Sec-Fetch-Site", method: "POST", path: events, contentType: form, body: formBody,
			header: map[string]string{"Origin": "null", "Sec-Fetch-Site": "cross-site"}, wantStatus: 403},
		{name: "wrong credentials: 403, not 401", method: "POST", path: events, contentType: form, body: formBody, auth: "admin:WrongPassword0123456789a",
			header: map[string]string{"Origin": evil, "Sec-Fetch-Site": "cross-site"}, wantStatus: 403},
		{name: "cross-site PATCH form", method: "PATCH", path: one, contentType: form, body: "title=Defaced",
			header: map[string]string{"Origin": evil, "Sec-Fetch-Site": "cross-site"}, wantStatus: 403},
		{name: "cross-site PUT text/plain", method: "PUT", path: one + "?title=Defaced", contentType: "text/plain",
			header: map[string]string{"Origin": evil, "Sec-Fetch-Site": "cross-site"}, wantStatus: 403},
		{name: "cross-site DELETE", method: "DELETE", path: one,
			header: map[string]string{"Origin": evil, "Sec-Fetch-Site": "cross-site"}, wantStatus: 403},
		{name: "override: POST _method=DELETE form", method: "POST", path: one + "?_method=DELETE", contentType: form, body: "",
			header: map[string]string{"Origin": evil, "Sec-Fetch-Site": "cross-site"}, wantStatus: 403},
		{name: "override: X-HTTP-Method-Override PATCH text/plain", method: "POST", path: one + "?title=Defaced", contentType: "text/plain",
			header: map[string]string{"Origin": evil, "X-HTTP-Method-Override": "PATCH"}, wantStatus: 403},

		// Allowed.
		{name: "cross-origin JSON with Authorization", method: "POST", path: events, body: jsonBody,
			header: map[string]string{"Origin": evil, "Sec-Fetch-Site": "cross-site"}, wantStatus: 201},
		{name: "cross-origin JSON with parameters", method: "POST", path: events, contentType: "Application/JSON; charset=utf-8", body: `{"title":"JSON Event","start_date":"2030-02-01 10:00","end_date":"2030-02-01 12:00"}`,
			header: map[string]string{"Origin": evil}, wantStatus: 201},
		{name: "override: cross-origin JSON DELETE", method: "POST", path: one + "?_method=DELETE", body: map[string]any{},
			header: map[string]string{"Origin": evil, "Sec-Fetch-Site": "cross-site"}, wantStatus: 200},
		{name: "same-origin form", method: "POST", path: events, contentType: form, body: formBody,
			header: map[string]string{"Origin": testOrigin, "Sec-Fetch-Site": "same-origin"}, wantStatus: 201},
		{name: "old browser: same origin", method: "POST", path: events, contentType: form, body: formBody,
			header: map[string]string{"Origin": testOrigin}, wantStatus: 201},
		{name: "old browser: same origin, other spelling", method: "PATCH", path: one, contentType: form, body: "title=Changed",
			header: map[string]string{"Origin": "HTTP://Cal.Test:80"}, wantStatus: 200},
		{name: "typed by the user (Sec-Fetch-Site none)", method: "POST", path: events, contentType: form, body: formBody,
			header: map[string]string{"Sec-Fetch-Site": "none"}, wantStatus: 201},
		{name: "curl-like form: no Origin, no Sec-Fetch-*", method: "POST", path: events, contentType: form, body: formBody, wantStatus: 201},
		{name: "curl-like DELETE", method: "DELETE", path: one, wantStatus: 200},
		{name: "trusted origin form", method: "POST", path: events, contentType: form, body: formBody,
			header: map[string]string{"Origin": trusted, "Sec-Fetch-Site": "cross-site"}, wantStatus: 201},
		{name: "trusted origin text/plain, old browser, default port", method: "POST", path: events + query, contentType: "text/plain",
			header: map[string]string{"Origin": "https://APP.example:443"}, wantStatus: 201},
		{name: "second trusted origin, override", method: "POST", path: one + "?_method=DELETE", contentType: form, body: "",
			header: map[string]string{"Origin": "http://other.example", "Sec-Fetch-Site": "same-site"}, wantStatus: 200},
		{name: "reads are not writes", method: "GET", path: one,
			header: map[string]string{"Origin": evil, "Sec-Fetch-Site": "cross-site"}, wantStatus: 200},
		{name: "preflights are not writes", method: "OPTIONS", path: events,
			header: map[string]string{"Origin": evil, "Sec-Fetch-Site": "cross-site", "Access-Control-Request-Method": "POST"}, wantStatus: 200},
	}
	ctx := context.Background()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := tc.path
			if rest, ok := strings.CutPrefix(path, one); ok {
				path = events + "/" + utoa(s.create(events, map[string]any{
					"title": "Target", "start_date": "2030-03-01 10:00", "end_date": "2030-03-01 12:00"})) + rest
			}
			auth := tc.auth
			if auth == "" {
				auth = adminAuth
			}
			before, err := s.app.db.ChangeHead(ctx)
			if err != nil {
				t.Fatal(err)
			}
			res := s.do(req{method: tc.method, path: path, auth: auth, body: tc.body, contentType: tc.contentType, header: tc.header})
			if res.status != tc.wantStatus {
				t.Fatalf("status %d, want %d\n%s", res.status, tc.wantStatus, res.body)
			}
			after, err := s.app.db.ChangeHead(ctx)
			if err != nil {
				t.Fatal(err)
			}
			wantEffect := tc.method != "GET" && tc.method != "OPTIONS" && tc.wantStatus < 300
			if gotEffect := after != before; gotEffect != wantEffect {
				t.Errorf("changed the store: %v, want %v (change log head %d → %d)", gotEffect, wantEffect, before, after)
			}
			if tc.wantStatus == http.StatusForbidden {
				body := res.json(t)
				if data, _ := body["data"].(map[string]any); body["code"] != "rest_cross_site_request" || data["status"] != float64(403) {
					t.Errorf("body %s, want the rest_cross_site_request envelope", res.body)
				}
			}
		})
	}
}

// TestTrustedProxies: behind a reverse proxy named in CALENDAR_TRUSTED_PROXIES, the failure throttle
// counts each client by the address the proxy appended to X-Forwarded-For, so ten wrong passwords
// from one client do not lock the login out for another; without the setting every request is the
// proxy's, and a client's X-Forwarded-For is never believed.
func TestTrustedProxies(t *testing.T) {
	const ns = "/calendar/events/v1"
	for _, tc := range []struct {
		name string
		env  []string
		// wantOther is the status of the right password from another client after ten failures.
		wantOther int
	}{
		{name: "behind a trusted proxy", env: []string{"CALENDAR_TRUSTED_PROXIES=127.0.0.1, ::1"}, wantOther: 200},
		{name: "no proxy trusted", wantOther: 429},
		{name: "another proxy trusted", env: []string{"CALENDAR_TRUSTED_PROXIES=10.0.0.0/8"}, wantOther: 429},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := startServer(t, tc.env...)
			from := func(client string) map[string]string {
				// What a client sent, then what the proxy appended: the client's address.
				return map[string]string{"X-Forwarded-For": "198.51.100.99, " + client}
			}
			for i := range 10 {
				if res := s.do(req{method: "GET", path: ns, auth: "admin:WrongPassword0123456789a", header: from("203.0.113.1")}); res.status != 401 {
					t.Fatalf("failure %d: %d", i+1, res.status)
				}
			}
			if res := s.do(req{method: "GET", path: ns, auth: adminAuth, header: from("203.0.113.1")}); res.status != 429 {
				t.Errorf("the client that failed ten times: %d, want 429", res.status)
			}
			if res := s.do(req{method: "GET", path: ns, auth: adminAuth, header: from("203.0.113.2")}); res.status != tc.wantOther {
				t.Errorf("another client: %d, want %d", res.status, tc.wantOther)
			}
		})
	}
	if _, err := parseConfig("serve", []string{"--trusted-proxies", "10.0.0.0/8,proxy.example"}, func(string) string { return "" }, io.Discard); err == nil ||
		!strings.Contains(err.Error(), "proxy.example") {
		t.Errorf("a proxy named by host: %v, want an error naming it", err)
	}
}

// TestAuthFailureThrottling: failed authentications are throttled by default, per client address and
// login (docs/API.md "Authentication and permissions"), and CALENDAR_AUTH_FAILURES_PER_MINUTE sets the limit or turns it off. The
// window passing and other addresses are covered by the handler's tests, which move the clock and
// the remote address.
func TestAuthFailureThrottling(t *testing.T) {
	const ns = "/calendar/events/v1"
	tests := []struct {
		name     string
		env      []string
		failures int // wrong passwords for admin before the checks
		// wantAdmin is the status of admin's next attempt, with the right password.
		wantAdmin      int
		wantRetryAfter string
	}{
		{name: "default: 10 failures, then 429", failures: 10, wantAdmin: 429, wantRetryAfter: "60"},
		{name: "default: 9 failures are not enough", failures: 9, wantAdmin: 200},
		{name: "a limit of 3", env: []string{"CALENDAR_AUTH_FAILURES_PER_MINUTE=3"}, failures: 3, wantAdmin: 429, wantRetryAfter: "60"},
		{name: "0 turns it off", env: []string{"CALENDAR_AUTH_FAILURES_PER_MINUTE=0"}, failures: 30, wantAdmin: 200},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := startServer(t, tc.env...)
			ann := s.user("ann", storage.RoleEditor)
			for i := range tc.failures {
				res := s.do(req{method: "GET", path: ns, auth: "admin:WrongPassword0123456789a"})
				if res.status != 401 {
					t.Fatalf("failure %d: status %d, want 401\n%s", i+1, res.status, res.body)
				}
			}
			res := s.do(req{method: "GET", path: ns, auth: adminAuth})
			if res.status != tc.wantAdmin || res.header.Get("Retry-After") != tc.wantRetryAfter {
				t.Fatalf("admin with the right password: %d Retry-After %q, want %d %q\n%s",
					res.status, res.header.Get("Retry-After"), tc.wantAdmin, tc.wantRetryAfter, res.body)
			}
			if res.status == http.StatusTooManyRequests {
				body := res.json(t)
				if data, _ := body["data"].(map[string]any); body["code"] != "rest_too_many_requests" || data["status"] != float64(429) {
					t.Errorf("body %s, want the rest_too_many_requests envelope", res.body)
				}
			}
			if res := s.do(req{method: "GET", path: ns, auth: ann}); res.status != 200 {
				t.Errorf("another login from the same address: %d, want 200", res.status)
			}
		})
	}
}
