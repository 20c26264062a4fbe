package main

import (
	"bytes"
	"encoding/json"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/calendard/calendard/jobs/webhook"
	"github.com/calendard/calendard/storage"
)

// TestParseConfigTrustedOrigins: CALENDAR_CORS_TRUSTED_ORIGINS and --cors-trusted-origins (README
// "Configuration") are parsed into canonical origins, the flag over the variable, and a malformed entry aborts
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
			if diff := cmp.Diff(tc.want, cfg.handlerConfig(cfg.budget()).TrustedOrigins); diff != "" {
				t.Errorf("trusted origins (-want +got):\n%s", diff)
			}
		})
	}
}

// TestParseConfigAuthFailures: CALENDAR_AUTH_FAILURES_PER_MINUTE and --auth-failures-per-minute
// (docs/API.md "Authentication and permissions"; README "Configuration"): 10 by default, 0 turns throttling off, the flag wins, and a value the throttle
// cannot honour aborts start-up.
func TestParseConfigAuthFailures(t *testing.T) {
	tests := []struct {
		name    string
		env     string
		args    []string
		want    int
		wantErr bool
	}{
		{name: "default", want: 10},
		{name: "variable", env: "5", want: 5},
		{name: "off", env: "0", want: 0},
		{name: "flag over variable", env: "5", args: []string{"--auth-failures-per-minute", "0"}, want: 0},
		{name: "largest", env: "100", want: 100},
		{name: "too large", env: "101", wantErr: true},
		{name: "negative", env: "-1", wantErr: true},
		{name: "not a number", env: "ten", wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			getenv := func(k string) string {
				if k == "CALENDAR_AUTH_FAILURES_PER_MINUTE" {
					return tc.env
				}
				return ""
			}
			cfg, err := parseConfig("serve", tc.args, getenv, io.Discard)
			if tc.wantErr {
				if err == nil || !strings.Contains(err.Error(), "auth-failures-per-minute") {
					t.Fatalf("got error %v, want one naming auth-failures-per-minute", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := cfg.handlerConfig(cfg.budget()).AuthFailuresPerMinute; got != tc.want {
				t.Errorf("got %d, want %d", got, tc.want)
			}
		})
	}
}

// TestParseConfigPerClientLimits: CALENDAR_WRITE_RATE_LIMIT_PER_MINUTE, CALENDAR_SERIES_PER_HOUR and
// CALENDAR_FEEDS_PER_CLIENT, and their flags: on by default at 60 writes a minute, 20 series an hour
// and 2 feeds in flight, 0 turns each off, the flag wins, and anything but a non-negative integer
// aborts start-up with a message naming the setting.
func TestParseConfigPerClientLimits(t *testing.T) {
	tests := []struct {
		name                              string
		env                               map[string]string
		args                              []string
		wantWrites, wantSeries, wantFeeds int
		wantErr                           string
	}{
		{name: "on by default", wantWrites: 60, wantSeries: 20, wantFeeds: 2},
		{name: "variables", env: map[string]string{"CALENDAR_WRITE_RATE_LIMIT_PER_MINUTE": "30", "CALENDAR_SERIES_PER_HOUR": "5", "CALENDAR_FEEDS_PER_CLIENT": "4"},
			wantWrites: 30, wantSeries: 5, wantFeeds: 4},
		{name: "off", env: map[string]string{"CALENDAR_WRITE_RATE_LIMIT_PER_MINUTE": "0", "CALENDAR_SERIES_PER_HOUR": "0", "CALENDAR_FEEDS_PER_CLIENT": "0"}},
		{name: "flags over variables", env: map[string]string{"CALENDAR_WRITE_RATE_LIMIT_PER_MINUTE": "30", "CALENDAR_SERIES_PER_HOUR": "5", "CALENDAR_FEEDS_PER_CLIENT": "4"},
			args: []string{"--write-rate-limit-per-minute", "0", "--series-per-hour", "100", "--feeds-per-client", "1"}, wantWrites: 0, wantSeries: 100, wantFeeds: 1},
		{name: "negative writes", env: map[string]string{"CALENDAR_WRITE_RATE_LIMIT_PER_MINUTE": "-1"}, wantErr: "write-rate-limit-per-minute"},
		{name: "writes not a number", args: []string{"--write-rate-limit-per-minute", "sixty"}, wantErr: "write-rate-limit-per-minute"},
		{name: "negative series", env: map[string]string{"CALENDAR_SERIES_PER_HOUR": "-1"}, wantErr: "series-per-hour"},
		{name: "series not a number", args: []string{"--series-per-hour", "1.5"}, wantErr: "series-per-hour"},
		{name: "negative feeds", env: map[string]string{"CALENDAR_FEEDS_PER_CLIENT": "-2"}, wantErr: "feeds-per-client"},
		{name: "feeds not a number", args: []string{"--feeds-per-client", "two"}, wantErr: "feeds-per-client"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg, ok := parseTestConfig(t, tc.args, tc.env, tc.wantErr)
			if !ok {
				return
			}
			hc := cfg.handlerConfig(cfg.budget())
			if hc.WriteRateLimitPerMinute != tc.wantWrites || hc.SeriesPerHour != tc.wantSeries || hc.FeedsPerClient != tc.wantFeeds {
				t.Errorf("got %d writes a minute, %d series an hour and %d feeds in flight, want %d, %d and %d",
					hc.WriteRateLimitPerMinute, hc.SeriesPerHour, hc.FeedsPerClient, tc.wantWrites, tc.wantSeries, tc.wantFeeds)
			}
		})
	}
}

// TestParseConfigChangesHorizon: CALENDAR_CHANGES_HORIZON and --changes-horizon: a week by default, 0
// keeps entries only until the index has them, the flag wins, and anything but a non-negative
// duration aborts start-up.
func TestParseConfigChangesHorizon(t *testing.T) {
	for _, tc := range []struct {
		name, env string
		args      []string
		want      time.Duration
		wantErr   bool
	}{
		{name: "a week by default", want: 168 * time.Hour},
		{name: "variable", env: "72h", want: 72 * time.Hour},
		{name: "off", env: "0", want: 0},
		{name: "flag over variable", env: "72h", args: []string{"--changes-horizon", "1h"}, want: time.Hour},
		{name: "negative", env: "-1h", wantErr: true},
		{name: "no unit", env: "7", wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			getenv := func(k string) string {
				if k == "CALENDAR_CHANGES_HORIZON" {
					return tc.env
				}
				return ""
			}
			cfg, err := parseConfig("serve", tc.args, getenv, io.Discard)
			if (err != nil) != tc.wantErr {
				t.Fatalf("error %v, want one: %v", err, tc.wantErr)
			}
			if err == nil && cfg.ChangesHorizon != tc.want {
				t.Errorf("horizon %v, want %v", cfg.ChangesHorizon, tc.want)
			}
		})
	}
}

func TestParseConfigSeriesMaxText(t *testing.T) {
	for _, tc := range []struct {
		name, env string
		args      []string
		want      int
		wantErr   bool
	}{
		{name: "8 MiB by default", want: 8 << 20},
		{name: "variable", env: "1000000", want: 1_000_000},
		{name: "flag over variable", env: "1000000", args: []string{"--series-max-text-bytes", "5000"}, want: 5000},
		{name: "zero", env: "0", wantErr: true},
		{name: "a unit", env: "8MB", wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			getenv := func(k string) string {
				if k == "CALENDAR_SERIES_MAX_TEXT_BYTES" {
					return tc.env
				}
				return ""
			}
			cfg, err := parseConfig("serve", tc.args, getenv, io.Discard)
			if (err != nil) != tc.wantErr {
				t.Fatalf("error %v, want one: %v", err, tc.wantErr)
			}
			if err == nil && cfg.SeriesMaxText != tc.want {
				t.Errorf("series-max-text-bytes %d, want %d", cfg.SeriesMaxText, tc.want)
			}
		})
	}
}

// TestLogging: CALENDAR_LOG_LEVEL and CALENDAR_LOG_FORMAT choose what is logged and how; timestamps
// are ISO-8601 in both forms.
func TestLogging(t *testing.T) {
	for _, tc := range []struct {
		name, level, format string
		wantErr             bool
		// want is checked against what logging one debug and one info line wrote.
		want func(t *testing.T, out string)
	}{
		{name: "json at info by default", want: func(t *testing.T, out string) {
			lines := strings.Split(strings.TrimSpace(out), "\n")
			if len(lines) != 1 {
				t.Fatalf("%d lines, want the info line only:\n%s", len(lines), out)
			}
			var line struct{ Level, Ts, Msg string }
			if err := json.Unmarshal([]byte(lines[0]), &line); err != nil || line.Level != "info" || line.Msg != "shown" {
				t.Fatalf("line %q: %+v %v", lines[0], line, err)
			}
			if _, err := time.Parse("2006-01-02T15:04:05.000Z0700", line.Ts); err != nil {
				t.Errorf("timestamp %q is not ISO-8601: %v", line.Ts, err)
			}
		}},
		{name: "console at debug", level: "debug", format: "console", want: func(t *testing.T, out string) {
			if !strings.Contains(out, "DEBUG\t") || !strings.Contains(out, "INFO\t") || strings.HasPrefix(out, "{") {
				t.Errorf("console output:\n%s", out)
			}
			if _, err := time.Parse("2006-01-02T15:04:05.000Z0700", strings.Fields(out)[0]); err != nil {
				t.Errorf("console timestamp: %v", err)
			}
		}},
		{name: "unknown level", level: "verbose", wantErr: true},
		{name: "fatal is no level to run at", level: "fatal", wantErr: true},
		{name: "unknown format", format: "xml", wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			vars := map[string]string{"CALENDAR_LOG_LEVEL": tc.level, "CALENDAR_LOG_FORMAT": tc.format}
			cfg, err := parseConfig("serve", nil, func(k string) string { return vars[k] }, io.Discard)
			if (err != nil) != tc.wantErr {
				t.Fatalf("error %v, want one: %v", err, tc.wantErr)
			}
			if err != nil {
				return
			}
			var out bytes.Buffer
			log := newLogger(cfg, &out)
			log.Debug("hidden at info")
			log.Info("shown")
			tc.want(t, out.String())
		})
	}
}

// parseTestConfig parses serve's configuration from args and env. With wantErr set, it checks that
// parsing fails with an error containing it and reports false; otherwise it fails t on an error.
func parseTestConfig(t *testing.T, args []string, env map[string]string, wantErr string) (Config, bool) {
	t.Helper()
	cfg, err := parseConfig("serve", args, func(k string) string { return env[k] }, io.Discard)
	if wantErr != "" {
		if err == nil || !strings.Contains(err.Error(), wantErr) {
			t.Fatalf("got error %v, want one containing %q", err, wantErr)
		}
		return cfg, false
	}
	if err != nil {
		t.Fatal(err)
	}
	return cfg, true
}

// TestParseConfigMirror: the CALENDAR_MIRROR_* settings are checked at start-up, and name the roots
// serve mirrors and the timeout of their requests.
func TestParseConfigMirror(t *testing.T) {
	for _, tc := range []struct {
		name      string
		env       map[string]string
		args      []string
		wantErr   string
		wantRoots int
		// wantFullEvery is the walks' interval the mirror gets (0: the default, 24h).
		wantFullEvery time.Duration
		wantTimeout   time.Duration // 0: the default, 30s
	}{
		{name: "none by default"},
		{name: "one root", env: map[string]string{"CALENDAR_MIRROR_FROM": "https://site.example/wp-json"}, wantRoots: 1},
		{name: "languages", env: map[string]string{"CALENDAR_MIRROR_FROM": "https://site.example/wp-json",
			"CALENDAR_MIRROR_LANGUAGES": "fr=https://site.example/fr/wp-json, de=https://site.example/de/wp-json"}, wantRoots: 3},
		{name: "flags", args: []string{"--mirror-from", "https://site.example/wp-json", "--mirror-interval", "1m"}, wantRoots: 1},
		{name: "bad root", env: map[string]string{"CALENDAR_MIRROR_FROM": "site.example"}, wantErr: "not a site's REST root"},
		{name: "bad language", env: map[string]string{"CALENDAR_MIRROR_FROM": "https://site.example/wp-json", "CALENDAR_MIRROR_LANGUAGES": "klingon=https://x"}, wantErr: "language"},
		{name: "default language twice", env: map[string]string{"CALENDAR_MIRROR_FROM": "https://site.example/wp-json", "CALENDAR_MIRROR_LANGUAGES": "en=https://x"}, wantErr: "two roots"},
		{name: "user without password", env: map[string]string{"CALENDAR_MIRROR_FROM": "https://site.example/wp-json", "CALENDAR_MIRROR_USER": "u"}, wantErr: "go together"},
		{name: "bad interval", env: map[string]string{"CALENDAR_MIRROR_INTERVAL": "0"}, wantErr: "mirror-interval"},
		{name: "full walks", env: map[string]string{"CALENDAR_MIRROR_FROM": "https://site.example/wp-json", "CALENDAR_MIRROR_FULL_EVERY": "6h"},
			wantRoots: 1, wantFullEvery: 6 * time.Hour},
		{name: "full walks flag", env: map[string]string{"CALENDAR_MIRROR_FULL_EVERY": "6h"},
			args: []string{"--mirror-from", "https://site.example/wp-json", "--mirror-full-every", "2h"}, wantRoots: 1, wantFullEvery: 2 * time.Hour},
		{name: "bad full walks", env: map[string]string{"CALENDAR_MIRROR_FULL_EVERY": "-1h"}, wantErr: "mirror-full-every"},
		{name: "timeout", env: map[string]string{"CALENDAR_MIRROR_FROM": "https://site.example/wp-json", "CALENDAR_MIRROR_TIMEOUT": "5s"}, wantRoots: 1, wantTimeout: 5 * time.Second},
		{name: "timeout flag", env: map[string]string{"CALENDAR_MIRROR_TIMEOUT": "5s"}, args: []string{"--mirror-timeout", "2m"}, wantTimeout: 2 * time.Minute},
		{name: "bad timeout", env: map[string]string{"CALENDAR_MIRROR_TIMEOUT": "0"}, wantErr: "mirror-timeout"},
		{name: "unreadable timeout", args: []string{"--mirror-timeout", "soon"}, wantErr: "mirror-timeout"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, ok := parseTestConfig(t, tc.args, tc.env, tc.wantErr)
			if !ok {
				return
			}
			roots, _ := cfg.mirror.roots(storage.Lang(cfg.DefaultLanguage))
			if cfg.MirrorFrom == "" {
				roots = nil
			}
			if len(roots) != tc.wantRoots {
				t.Errorf("roots %v, want %d", roots, tc.wantRoots)
			}
			want := tc.wantFullEvery
			if want == 0 {
				want = 24 * time.Hour
			}
			if cfg.MirrorFullEvery != want || cfg.MirrorFrom != "" && cfg.mirror.FullEvery != want {
				t.Errorf("full walks every %s (mirror: %s), want %s", cfg.MirrorFullEvery, cfg.mirror.FullEvery, want)
			}
			timeout := tc.wantTimeout
			if timeout == 0 {
				timeout = 30 * time.Second
			}
			if cfg.MirrorTimeout != timeout || cfg.MirrorFrom != "" && cfg.mirror.Timeout != timeout {
				t.Errorf("timeout %s (the site's %s), want %s", cfg.MirrorTimeout, cfg.mirror.Timeout, timeout)
			}
		})
	}
}

func TestParseConfigWebhooks(t *testing.T) {
	for _, tc := range []struct {
		name             string
		args             []string
		wantTimeout      time.Duration
		wantRetries      []time.Duration
		wantErrSubstring string
	}{
		{name: "defaults", wantTimeout: 15 * time.Second, wantRetries: webhook.DefaultSchedule},
		{name: "set", args: []string{"--webhook-timeout", "3s", "--webhook-retries", "1s, 1m"},
			wantTimeout: 3 * time.Second, wantRetries: []time.Duration{time.Second, time.Minute}},
		{name: "zero timeout", args: []string{"--webhook-timeout", "0"}, wantErrSubstring: "webhook-timeout"},
		{name: "empty schedule", args: []string{"--webhook-retries", ""}, wantErrSubstring: "webhook-retries"},
		{name: "a step without unit", args: []string{"--webhook-retries", "5s,5"}, wantErrSubstring: `"5"`},
		{name: "a negative step", args: []string{"--webhook-retries", "-5s"}, wantErrSubstring: "positive"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := parseConfig("serve", tc.args, func(string) string { return "" }, io.Discard)
			if tc.wantErrSubstring != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErrSubstring) {
					t.Fatalf("error %v, want one with %q", err, tc.wantErrSubstring)
				}
				return
			}
			if err != nil || cfg.WebhookTimeout != tc.wantTimeout || !slices.Equal(cfg.WebhookRetries, tc.wantRetries) {
				t.Errorf("timeout %v retries %v (%v); want %v %v", cfg.WebhookTimeout, cfg.WebhookRetries, err, tc.wantTimeout, tc.wantRetries)
			}
		})
	}
}
