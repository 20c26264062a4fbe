package main

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/calendard/calendard/storage"
)

func runRouteCases(t *testing.T, s *server, cases []routeCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := s.do(tc.r)
			checkResponse(t, res, tc)
		})
	}
}

func checkResponse(t *testing.T, res *response, tc routeCase) {
	t.Helper()
	if res.status != tc.wantStatus {
		t.Fatalf("%s %s: status %d, want %d\n%s", tc.r.method, tc.r.path, res.status, tc.wantStatus, res.body)
	}
	for k, v := range tc.wantHeader {
		if got := res.header.Get(k); got != v {
			t.Errorf("header %s = %q, want %q", k, got, v)
		}
	}
	if want := "<" + baseOf(tc.r.path) + `/>; rel="https://api.w.org/"`; tc.r.path != "" && res.header.Get("Link") != want {
		t.Errorf("Link %q, want %q (docs/API.md, Responses)", res.header.Get("Link"), want)
	}
	if res.status == http.StatusUnauthorized {
		if got := res.header.Get("WWW-Authenticate"); got != wwwAuthenticate {
			t.Errorf("401 with WWW-Authenticate %q, want %q (docs/API.md, Responses)", got, wwwAuthenticate)
		}
	}
	if res.status == http.StatusNotModified || tc.r.method == "HEAD" {
		if len(res.body) != 0 {
			t.Errorf("%d answer to %s with a body: %s", res.status, tc.r.method, res.body)
		}
		return
	}
	if got := res.header.Get("Content-Type"); got != "application/json; charset=UTF-8" {
		t.Errorf("Content-Type %q (docs/API.md, Responses)", got)
	}
	body := res.json(t)
	if tc.wantCode != "" || res.status >= 400 {
		checkError(t, body, tc)
	}
	wantKeys(t, body, tc.want, tc.absent...)
	if tc.golden != "" {
		golden(t, tc.golden, res.body)
	}
}

// checkError checks the error envelope of docs/API.md "Parameters and bodies".
func checkError(t *testing.T, body map[string]any, tc routeCase) {
	t.Helper()
	if body["code"] != tc.wantCode {
		t.Errorf("code %v, want %q", body["code"], tc.wantCode)
	}
	if _, ok := body["message"].(string); !ok {
		t.Errorf("message %v is not a string", body["message"])
	}
	data, _ := body["data"].(map[string]any)
	if data["status"] != float64(tc.wantStatus) {
		t.Errorf("data.status = %v, want %d", data["status"], tc.wantStatus)
	}
	wantKeys(t, data, tc.wantData)
	switch tc.wantCode {
	case "rest_missing_callback_param":
		got, _ := data["params"].([]any)
		if diff := cmp.Diff(jsonValue(t, tc.wantParams), any(got)); tc.wantParams != nil && diff != "" {
			t.Errorf("data.params (-want +got):\n%s", diff)
		}
	case "rest_invalid_param":
		params, ok := data["params"].(map[string]any)
		if !ok {
			t.Fatalf("data.params %v is not an object", data["params"])
		}
		details, ok := data["details"].(map[string]any)
		if !ok {
			t.Fatalf("data.details %v is not an object", data["details"])
		}
		if tc.wantParams != nil {
			var got []string
			for k := range params {
				got = append(got, k)
			}
			slices.Sort(got)
			want := slices.Sorted(slices.Values(tc.wantParams))
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("data.params keys (-want +got):\n%s", diff)
			}
		}
		for name, code := range tc.wantDetails {
			d, _ := details[name].(map[string]any)
			if d["code"] != code {
				t.Errorf("data.details.%s.code = %v, want %s (details %v)", name, d["code"], code, details)
			}
		}
	}
}

// baseOf is {base} of a request path: the origin, plus the language prefix if the path has one (1.1).
func baseOf(path string) string {
	first, _, _ := strings.Cut(strings.TrimPrefix(path, "/"), "/")
	if _, ok := storage.ParseLang(first); ok {
		return testOrigin + "/" + first
	}
	return testOrigin
}

// jsonValue returns v as encoding/json decodes it into an any (numbers float64, maps map[string]any).
func jsonValue(t testing.TB, v any) any {
	t.Helper()
	var out any
	if err := json.Unmarshal([]byte(toJSON(t, v)), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// wantKeys checks that body has each key of want with that value, and none of absent.
func wantKeys(t testing.TB, body map[string]any, want map[string]any, absent ...string) {
	t.Helper()
	for k, v := range want {
		got, ok := body[k]
		if !ok {
			t.Errorf("key %q missing, want %v", k, v)
			continue
		}
		if diff := cmp.Diff(jsonValue(t, v), got); diff != "" {
			t.Errorf("key %q (-want +got):\n%s", k, diff)
		}
	}
	for _, k := range absent {
		if v, ok := body[k]; ok {
			t.Errorf("key %q present (%v), want it omitted", k, v)
		}
	}
}

// wantChanged checks that after is before with the keys of changed set and the keys of removed gone:
// everything else must be untouched (docs/API.md "Updates").
func wantChanged(t testing.TB, before, after map[string]any, changed map[string]any, removed ...string) {
	t.Helper()
	want := make(map[string]any, len(before))
	for k, v := range before {
		want[k] = v
	}
	for k, v := range changed {
		want[k] = jsonValue(t, v)
	}
	for _, k := range removed {
		delete(want, k)
	}
	if diff := cmp.Diff(want, after); diff != "" {
		t.Errorf("record after update (-want +got):\n%s", diff)
	}
}

// get fetches path as the administrator and decodes the object.
func (s *server) get(path string) map[string]any {
	s.t.Helper()
	res := s.do(req{method: "GET", path: path, auth: adminAuth})
	if res.status != http.StatusOK {
		s.t.Fatalf("GET %s: status %d\n%s", path, res.status, res.body)
	}
	return res.json(s.t)
}

// withoutLD drops json_ld, which only single GETs carry (3.7), so a GET can be compared with a write.
func withoutLD(m map[string]any) map[string]any {
	delete(m, "json_ld")
	return m
}

// routeCase is one request of a scenario table and what the contract says it answers. The cases of a
// table run in order against one server, so later cases may depend on earlier ones.
type routeCase struct {
	name       string
	r          req
	wantStatus int
	wantCode   string         // error code (2.6, 9); "" for a success
	golden     string         // testdata/<golden>.golden.json pins the body
	want       map[string]any // top-level keys of the body and their values (compared as decoded JSON)
	absent     []string       // top-level keys the body must not have
	// wantParams: for rest_missing_callback_param, data.params exactly (in order); for
	// rest_invalid_param, the keys of data.params (any order).
	wantParams  []string
	wantDetails map[string]string // rest_invalid_param: parameter → data.details[parameter].code
	wantData    map[string]any    // keys of data and their values (e.g. term_id)
	wantHeader  map[string]string // response headers that must have these exact values
}
