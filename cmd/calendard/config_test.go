package main

import (
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestParseConfigTrustedOrigins: CALENDAR_CORS_TRUSTED_ORIGINS and --cors-trusted-origins (CONTRACT
// 0.3) are parsed into canonical origins, the flag over the variable, and a malformed entry aborts
// start-up with a message naming it.
func TestParseConfigTrustedOrigins(t *testing.T) {
	tests := []struct {
		name    string
		env     string
		args    []string
		want    []string
		wantErr string
	}{
		{name: "empty by default"},
		{name: "variable", env: "https://app.example, http://Admin.example:8080,",
			want: []string{"https://app.example", "http://admin.example:8080"}},
		{name: "default ports dropped", env: "https://app.example:443,http://app.example:80",
			want: []string{"https://app.example", "http://app.example"}},
		{name: "flag over variable", env: "https://app.example", args: []string{"--cors-trusted-origins", "https://other.example"},
			want: []string{"https://other.example"}},
		{name: "path", env: "https://app.example/", wantErr: `"https://app.example/" is not an origin`},
		{name: "no scheme", env: "https://app.example,app2.example", wantErr: `"app2.example" is not an origin`},
		{name: "null", env: "null", wantErr: `"null" is not an origin`},
		{name: "bad port", env: "https://app.example:99999", wantErr: "port"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			getenv := func(k string) string {
				if k == "CALENDAR_CORS_TRUSTED_ORIGINS" {
					return tc.env
				}
				return ""
			}
			cfg, err := parseConfig("serve", tc.args, getenv, io.Discard)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("got error %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, cfg.handlerConfig().TrustedOrigins); diff != "" {
				t.Errorf("trusted origins (-want +got):\n%s", diff)
			}
		})
	}
}
