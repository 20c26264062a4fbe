package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/calendard/calendard/storage"
)

// syncBuffer is a log sink that goroutines may share.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) Sync() error { return nil }

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestAuthentication covers docs/API.md "Authentication and permissions" end to end, and checks that no password reaches the
// logs.
func TestAuthentication(t *testing.T) {
	t.Parallel()
	var logs syncBuffer
	log := zap.New(zapcore.NewCore(zapcore.NewJSONEncoder(zap.NewProductionEncoderConfig()), &logs, zapcore.DebugLevel))
	s := startServerLogged(t, t.TempDir(), log)
	carl := s.user("carl", storage.RoleContributor) // user 2
	ava := s.user("ava", storage.RoleAuthor)
	_, carlPass, _ := strings.Cut(carl, ":")
	_, avaPass, _ := strings.Cut(ava, ":")
	carlSecond, err := s.app.db.CreateAppPassword(context.Background(), "carl", "second")
	if err != nil {
		t.Fatal(err)
	}
	draft := permNS + "/events/" + utoa(s.create(permNS+"/events", map[string]any{"title": "Carl's draft", "status": "draft",
		"author": 2, "start_date": permStart, "end_date": permEnd}))
	public := permNS + "/events/" + utoa(s.create(permNS+"/events", map[string]any{"title": "Public", "start_date": permStart, "end_date": permEnd}))

	const wrongPass = "WrongPassword0123456789x"
	basic := func(s string) string { return "Basic " + base64.StdEncoding.EncodeToString([]byte(s)) }
	grouped := func(p string) string { // "abcd efgh ijkl mnop qrst uvwx", as WordPress shows it
		var g []string
		for i := 0; i < len(p); i += 4 {
			g = append(g, p[i:i+4])
		}
		return strings.Join(g, " ")
	}
	secrets := []string{adminPass, carlPass, avaPass, carlSecond, wrongPass, grouped(carlPass), grouped(wrongPass)}

	tests := []struct {
		name   string
		auth   string // the Authorization header as sent
		method string
		path   string
		want   string // "200", "NNN code"
	}{
		// 7.3: every failure is 401 before routing, whatever the route.
		{"not base64", "Basic !!!", "GET", public, "401 invalid_username"},
		{"no colon", basic("carl" + carlPass), "GET", public, "401 invalid_username"},
		{"empty basic", "Basic", "GET", public, "401 invalid_username"},
		{"unknown login", basic("nobody:" + carlPass), "GET", public, "401 invalid_username"},
		{"unknown e-mail", basic("nobody@example.org:" + carlPass), "GET", public, "401 invalid_email"},
		{"wrong password", basic("carl:" + wrongPass), "GET", public, "401 incorrect_password"},
		{"another user's password", basic("carl:" + avaPass), "GET", public, "401 incorrect_password"},
		{"empty password", basic("carl:"), "GET", public, "401 incorrect_password"},
		{"e-mail with a wrong password", basic("carl@example.org:" + wrongPass), "GET", public, "401 incorrect_password"},
		{"unknown token", "Bearer " + wrongPass, "GET", public, "401 invalid_token"},
		{"empty token", "Bearer", "GET", public, "401 invalid_token"},
		{"login as token", "Bearer carl", "GET", public, "401 invalid_token"},
		{"failure before routing", basic("carl:" + wrongPass), "GET", permNS + "/no-such-route", "401 incorrect_password"},
		{"failure before validation", basic("carl:" + wrongPass), "POST", permNS + "/events", "401 incorrect_password"},
		// 7.2: accepted forms; the draft is readable only by carl, so 200 proves who the caller is.
		{"basic with login", basic(carl), "GET", draft, "200"},
		{"basic with e-mail", basic("carl@example.org:" + carlPass), "GET", draft, "200"},
		{"basic with the grouped form", basic("carl:" + grouped(carlPass)), "GET", draft, "200"},
		{"second application password", basic("carl:" + carlSecond), "GET", draft, "200"},
		{"bearer", "Bearer " + carlPass, "GET", draft, "200"},
		{"bearer with the grouped form", "Bearer " + grouped(carlPass), "GET", draft, "200"},
		{"another user", basic(ava), "GET", draft, "403 event-not-accessible"},
		// No header, or another scheme: anonymous (reads of public content work, writes are 401).
		{"no header", "", "GET", draft, "403 event-not-accessible"},
		{"no header, public", "", "GET", public, "200"},
		{"digest scheme", "Digest username=\"carl\"", "GET", draft, "403 event-not-accessible"},
		{"token scheme with a valid password", "Token " + carlPass, "GET", public, "200"},
		{"other scheme writes", "Token " + carlPass, "PATCH", draft, "401 rest_forbidden"},
		{"anonymous write", "", "DELETE", draft, "401 rest_forbidden"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := req{method: tc.method, path: tc.path, header: map[string]string{}}
			if tc.auth != "" {
				r.header["Authorization"] = tc.auth
			}
			if tc.method == "POST" || tc.method == "PATCH" {
				r.body = map[string]any{"title": "Changed"}
			}
			res := s.do(r)
			authCheck(t, tc.name, res, tc.want)
		})
	}

	t.Run("revocation takes effect immediately", func(t *testing.T) {
		if err := s.app.db.RevokeAppPassword(context.Background(), "carl", "test"); err != nil {
			t.Fatal(err)
		}
		authCheck(t, "revoked basic", s.do(req{method: "GET", path: draft, auth: carl}), "401 incorrect_password")
		authCheck(t, "revoked bearer", s.do(req{method: "GET", path: draft, auth: "Bearer " + carlPass}), "401 invalid_token")
		authCheck(t, "other password", s.do(req{method: "GET", path: draft, auth: "carl:" + carlSecond}), "200")
	})

	t.Run("no password in the logs", func(t *testing.T) {
		s.stop() // every request line is written
		out := logs.String()
		if n := strings.Count(out, `"msg":"request"`); n < len(tests) {
			t.Fatalf("%d request lines in the log, want at least %d:\n%s", n, len(tests), out)
		}
		if !strings.Contains(out, `"path":"`+draft+`"`) {
			t.Errorf("the log has no request line for %s:\n%s", draft, out)
		}
		for _, secret := range secrets {
			for _, form := range []string{secret, base64.StdEncoding.EncodeToString([]byte("carl:" + secret))} {
				if strings.Contains(out, form) {
					t.Errorf("the log contains the secret %q", form)
				}
			}
		}
	})
}

func authCheck(t *testing.T, name string, res *response, want string) {
	t.Helper()
	code, detail, _ := strings.Cut(want, " ")
	if strconv.Itoa(res.status) != code {
		t.Errorf("%s: got %d %s, want %s", name, res.status, res.body, want)
		return
	}
	if detail != "" {
		if got := res.json(t)["code"]; got != detail {
			t.Errorf("%s: got code %v, want %s", name, got, detail)
		}
	}
	if got := res.header.Get("WWW-Authenticate"); res.status == http.StatusUnauthorized && got != permWWWAuthenticate {
		t.Errorf("%s: 401 with WWW-Authenticate %q, want %q", name, got, permWWWAuthenticate)
	}
}
