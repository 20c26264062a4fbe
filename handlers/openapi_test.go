package handlers

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/calendard/calendard/jobs/webhook"
)

func getDoc(t *testing.T, h *Handler, path string) []byte {
	t.Helper()
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("GET", path, nil))
	if w.Code != 200 {
		t.Fatalf("%s: %d %s", path, w.Code, w.Body)
	}
	return w.Body.Bytes()
}

// TestDocIsValidOpenAPI loads /doc with a real OpenAPI 3 implementation and validates it.
func TestDocIsValidOpenAPI(t *testing.T) {
	h, _ := newTestHandler(t, Config{SiteName: "Calendar Events"})
	body := getDoc(t, h.(*Handler), "/calendar/events/v1/doc")
	doc, err := openapi3.NewLoader().LoadFromData(body)
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("invalid OpenAPI document: %v", err)
	}
	if got := doc.Servers[0].URL; got != "http://example.com/calendar/events/v1/" {
		t.Errorf("servers[0].url = %q", got)
	}
}

// TestDocMatchesTheRouter fails when an operation is documented but not routed, or routed but not
// documented, or when a parameter of a table is missing from the document.
func TestDocMatchesTheRouter(t *testing.T) {
	h, _ := newTestHandler(t, Config{})
	hh := h.(*Handler)
	var doc struct {
		Paths map[string]map[string]struct {
			Parameters  []struct{ Name string }
			RequestBody *struct {
				Content map[string]struct {
					Schema struct{ Properties map[string]any }
				}
			}
		}
	}
	if err := json.Unmarshal(getDoc(t, hh, "/calendar/events/v1/doc"), &doc); err != nil {
		t.Fatal(err)
	}
	documented := 0
	for path, item := range doc.Paths {
		for method := range item {
			documented++
			target := "/calendar/events/v1" + strings.NewReplacer("{id}", "1", "{slug}", "x").Replace(path)
			w := httptest.NewRecorder()
			hh.ServeHTTP(w, httptest.NewRequest(strings.ToUpper(method), target, strings.NewReader("{}")))
			if strings.Contains(w.Body.String(), `"rest_no_route"`) {
				t.Errorf("%s %s is documented but not routed", method, path)
			}
		}
	}
	routed := 0
	for _, rt := range hh.table {
		if rt.pattern == "/"+namespace {
			continue
		}
		item := doc.Paths[docPath(rt)]
		for _, ep := range rt.endpoints {
			for _, m := range ep.methods {
				routed++
				op, ok := item[strings.ToLower(m)]
				if !ok {
					t.Errorf("%s %s is routed but not documented", m, docPath(rt))
					continue
				}
				names := map[string]bool{}
				for _, p := range op.Parameters {
					names[p.Name] = true
				}
				if op.RequestBody != nil {
					for name := range op.RequestBody.Content["application/json"].Schema.Properties {
						names[name] = true
					}
				}
				for _, p := range ep.params {
					if !names[p.Name] {
						t.Errorf("%s %s: parameter %s is not documented", m, docPath(rt), p.Name)
					}
				}
			}
		}
	}
	if documented != routed {
		t.Errorf("%d operations documented, %d routed", documented, routed)
	}
}

// TestDocNamesErrorCodes fails when /doc stops naming an error code of docs/API.md "Errors" under its status on an
// operation that may answer it, or stops announcing the Retry-After that comes with it.
func TestDocNamesErrorCodes(t *testing.T) {
	h, _ := newTestHandler(t, Config{})
	var doc struct {
		Paths map[string]map[string]struct {
			Responses map[string]struct {
				Description string
				Headers     map[string]any
			}
		}
	}
	if err := json.Unmarshal(getDoc(t, h.(*Handler), "/calendar/events/v1/doc"), &doc); err != nil {
		t.Fatal(err)
	}
	anywhere := func(path, method string) bool { return true }
	writes := func(path, method string) bool { return method != "get" }
	recordCreates := func(path, method string) bool {
		return method == "post" && (path == "/events" || path == "/venues" || path == "/organizers")
	}
	for _, tc := range []struct {
		code, status string
		on           func(path, method string) bool
		retryAfter   bool
	}{
		{"invalid_username", "401", anywhere, false},
		{"invalid_email", "401", anywhere, false},
		{"incorrect_password", "401", anywhere, false},
		{"invalid_token", "401", anywhere, false},
		{"rest_cross_site_request", "403", writes, false},
		{"translation-already-exists", "409", recordCreates, false},
		{"rest_request_too_large", "413", anywhere, false},
		{"rest_too_many_requests", "429", anywhere, true},
		{"rest_timeout", "503", anywhere, false},
		{"rest_not_ready", "503", anywhere, true},
	} {
		t.Run(tc.code, func(t *testing.T) {
			for path, item := range doc.Paths {
				for method, op := range item {
					r, listed := op.Responses[tc.status]
					named := listed && strings.Contains(r.Description, tc.code+":")
					switch want := tc.on(path, method); {
					case want && !named:
						t.Errorf("%s %s: %s does not name %s: %q", method, path, tc.status, tc.code, r.Description)
					case !want && named:
						t.Errorf("%s %s: %s names %s, which it never answers", method, path, tc.status, tc.code)
					case want && tc.retryAfter && r.Headers["Retry-After"] == nil:
						t.Errorf("%s %s: %s has no Retry-After header", method, path, tc.status)
					}
				}
			}
		})
	}
}

// TestDocDescribesWebhooks: /doc's x-webhooks holds a valid OpenAPI path item for the deliveries,
// whose message types are those the webhooks send and whose headers are the signature's.
func TestDocDescribesWebhooks(t *testing.T) {
	h, _ := newTestHandler(t, Config{})
	var doc struct {
		Webhooks map[string]json.RawMessage `json:"x-webhooks"`
	}
	if err := json.Unmarshal(getDoc(t, h.(*Handler), "/calendar/events/v1/doc"), &doc); err != nil {
		t.Fatal(err)
	}
	var item openapi3.PathItem
	if err := item.UnmarshalJSON(doc.Webhooks[webhook.TypeChanged]); err != nil {
		t.Fatalf("x-webhooks: %v in %s", err, doc.Webhooks)
	}
	if err := item.Validate(context.Background()); err != nil || item.Post == nil {
		t.Fatalf("x-webhooks.%s: %v, post %v", webhook.TypeChanged, err, item.Post)
	}
	var headers []string
	for _, p := range item.Post.Parameters {
		if p.Value.In == "header" && p.Value.Required {
			headers = append(headers, p.Value.Name)
		}
	}
	if want := "webhook-id webhook-timestamp webhook-signature"; strings.Join(headers, " ") != want {
		t.Errorf("headers %v, want %s", headers, want)
	}
	msg := item.Post.RequestBody.Value.Content.Get("application/json").Schema.Value
	var types []string
	for _, v := range msg.Properties["type"].Value.Enum {
		types = append(types, v.(string))
	}
	if want := []string{webhook.TypeChanged, webhook.TypeResyncRequired, webhook.TypeTest}; strings.Join(types, " ") != strings.Join(want, " ") {
		t.Errorf("message types %v, want %v", types, want)
	}
	if got := msg.Properties["data"].Value.Properties["changes"].Value.MaxItems; got == nil || *got != 100 {
		t.Errorf("changes' maxItems %v, want 100", got)
	}
}
