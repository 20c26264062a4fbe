package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"time"

	"go.uber.org/zap/zapcore"

	"github.com/calendard/calendard/handlers"
	"github.com/calendard/calendard/jobs/mirror"
	"github.com/calendard/calendard/jobs/webhook"
	"github.com/calendard/calendard/storage"
	"github.com/calendard/calendard/storage/datetime"
	"github.com/calendard/calendard/storage/kv"
	"github.com/calendard/calendard/storage/kv/etcdkv"
)

// Config is the effective configuration of the service (README "Configuration"): defaults, overridden by
// CALENDAR_* variables, overridden by flags.
type Config struct {
	ListenAddr         string
	DataDir            string
	BaseURL            string
	SiteName           string
	SiteTimezone       string
	DefaultLanguage    string
	CurrencySymbol     string
	CurrencyPosition   string
	CurrencyCode       string
	MaxBodyBytes       int64
	RateLimitPerMinute int
	// WriteRateLimitPerMinute and SeriesPerHour are the write limits of users below editor, 0 = off
	// (handlers.Config).
	WriteRateLimitPerMinute, SeriesPerHour int
	// FeedsPerClient is how many iCalendar feed answers each client may have in flight, 0 = off
	// (handlers.Config).
	FeedsPerClient int
	// CORSTrustedOrigins is the comma-separated list of CALENDAR_CORS_TRUSTED_ORIGINS, as given.
	CORSTrustedOrigins string
	// TrustedProxies is the comma-separated list of CALENDAR_TRUSTED_PROXIES, as given.
	TrustedProxies string
	// AuthFailuresPerMinute is N of docs/API.md "Authentication and permissions"'s failure throttling, 0 = off.
	AuthFailuresPerMinute int
	AdminLogin            string
	AdminEmail            string
	AdminAppPassword      string
	Now                   string
	// CPUProfile, when set, receives a CPU profile of the whole run (flag only: a tool for measuring).
	CPUProfile string
	// DemoEvents is how many generated events serve writes into a store without events before it
	// opens the index (demo.go). Off (0) by default, so that a production data directory never gets
	// demo data by accident; make run turns it on.
	DemoEvents int
	// LogLevel is debug, info, warn or error; LogFormat json or console.
	LogLevel, LogFormat string
	// ChangesHorizon is how long change-log entries are kept at least, so change-feed cursors stay
	// valid that long (storage.Options.ChangesHorizon).
	ChangesHorizon time.Duration
	// SeriesPast and SeriesHorizon are the months before and after today a series materialises
	// (storage.Options.SeriesPast, SeriesHorizon).
	SeriesPast, SeriesHorizon int
	// SeriesMaxText bounds the text a series' occurrences copy from their parent
	// (storage.Options.SeriesMaxText).
	SeriesMaxText int
	// MetricsAddr is the address of a listener of the metrics' own; empty serves them on ListenAddr.
	MetricsAddr string
	// MirrorFrom is the REST root of a TEC site serve mirrors (empty: none), with the site user and
	// application password that see its unpublished records, its further roots (lang=URL, comma
	// separated) and the interval of the syncs.
	MirrorFrom, MirrorUser, MirrorAppPassword, MirrorLanguages string
	MirrorInterval                                             time.Duration
	// MirrorFullEvery is the longest time between two complete walks of the mirrored site's lists
	// (tec.Importer.FullEvery): the syncs between them ask only what changed among the records
	// WordPress lists, which leaves out every event that has ended.
	MirrorFullEvery time.Duration
	// MirrorTimeout bounds each request of either mirror to its source.
	MirrorTimeout time.Duration
	// WebhookTimeout bounds each webhook delivery, and WebhookRetries are the waits before the
	// retries of a failed one (webhook.Options).
	WebhookTimeout time.Duration
	WebhookRetries []time.Duration
	// ICSFrom is the iCalendar file or feed URL serve mirrors (empty: none), on MirrorInterval.
	ICSFrom string
	// EtcdEndpoints is the comma-separated list of CALENDAR_ETCD_ENDPOINTS, as given: when set, the
	// records live in that etcd cluster under EtcdPrefix (cluster mode, docs/CLUSTER.md) and DataDir holds
	// only what a node rebuilds (its indexes). EtcdCA, EtcdCert and EtcdKey are TLS's PEM files,
	// EtcdUser and EtcdPassword etcd's authentication.
	EtcdEndpoints, EtcdPrefix, EtcdCA, EtcdCert, EtcdKey, EtcdUser, EtcdPassword string
	// EtcdTimeout bounds the first contact with etcd and each request to it: past it, etcd counts as
	// out of reach (503 rest_store_unavailable).
	EtcdTimeout time.Duration
	// EtcdMaxTxnOps and EtcdMaxRequestBytes are the cluster's limits of one transaction (etcd's
	// --max-txn-ops and --max-request-bytes): a write over them fails whole. Raised on the cluster,
	// they must be raised here too, for the writes of many keys (a series' occurrences).
	EtcdMaxTxnOps, EtcdMaxRequestBytes int
	// MemoryMB is the memory budget in MiB (memory.go); 0 = none.
	MemoryMB int
	// memoryDefault is set when neither CALENDAR_MEMORY_MB nor --memory-mb gave MemoryMB: the
	// default budget, which grows with the calendar (memoryBudget.forCalendar).
	memoryDefault bool

	siteZone datetime.Zone
	now      time.Time
	logLevel zapcore.Level
	// trustedOrigins is CORSTrustedOrigins parsed, each in handlers.ParseOrigin's form; trustedProxies
	// is TrustedProxies parsed.
	trustedOrigins []string
	trustedProxies []netip.Prefix
	// mirror is the Mirror* settings checked.
	mirror mirrorConfig
	// etcd is the Etcd* settings checked; nil without endpoints (the embedded store).
	etcd *etcdkv.Config
	// wrapStore, when set, wraps the store's key-value backend (storage.Options.Wrap): tests make a
	// disk full with it.
	wrapStore func(kv.Store) kv.Store
}

// setting ties a Config field to its variable and flag.
type setting struct {
	env, flag, def, usage string
	dst                   *string
}

func (c *Config) settings() []setting {
	return []setting{
		{"CALENDAR_LISTEN_ADDR", "listen-addr", "127.0.0.1:8080", "listen address", &c.ListenAddr},
		{"CALENDAR_METRICS_ADDR", "metrics-addr", "", "address of a listener of their own for GET /metrics (keep it private); empty serves /metrics on listen-addr", &c.MetricsAddr},
		{"CALENDAR_DATA_DIR", "data-dir", "./data", "directory holding all state", &c.DataDir},
		{"CALENDAR_BASE_URL", "base-url", "", "public origin (scheme://host[:port][/path]); derived per request when empty", &c.BaseURL},
		{"CALENDAR_SITE_NAME", "site-name", "Calendar Events", "site name shown in the root index", &c.SiteName},
		{"CALENDAR_SITE_TIMEZONE", "site-timezone", "UTC", "site time zone (IANA name or UTC±H[:MM])", &c.SiteTimezone},
		{"CALENDAR_DEFAULT_LANGUAGE", "default-language", "en", "default language (nl en fr de it pl es)", &c.DefaultLanguage},
		{"CALENDAR_CURRENCY_SYMBOL", "currency-symbol", "$", "default currency symbol", &c.CurrencySymbol},
		{"CALENDAR_CURRENCY_POSITION", "currency-position", "prefix", "prefix or postfix", &c.CurrencyPosition},
		{"CALENDAR_CURRENCY_CODE", "currency-code", "USD", "ISO 4217 code used in json_ld offers", &c.CurrencyCode},
		{"CALENDAR_CORS_TRUSTED_ORIGINS", "cors-trusted-origins", "", "comma-separated origins (scheme://host[:port]) that get CORS credentials and may send cross-site writes", &c.CORSTrustedOrigins},
		{"CALENDAR_TRUSTED_PROXIES", "trusted-proxies", "", "comma-separated IP addresses and CIDR prefixes of reverse proxies whose X-Forwarded-For names the client", &c.TrustedProxies},
		{"CALENDAR_ADMIN_LOGIN", "admin-login", "admin", "login of the first administrator", &c.AdminLogin},
		{"CALENDAR_ADMIN_EMAIL", "admin-email", "admin@localhost", "e-mail of the first administrator", &c.AdminEmail},
		{"CALENDAR_ADMIN_APP_PASSWORD", "admin-app-password", "", "application password of the first administrator (generated when empty)", &c.AdminAppPassword},
		{"CALENDAR_LOG_LEVEL", "log-level", "info", "log level: debug, info, warn or error", &c.LogLevel},
		{"CALENDAR_LOG_FORMAT", "log-format", "json", "log format: json (one object a line) or console (for people)", &c.LogFormat},
		{"CALENDAR_MIRROR_FROM", "mirror-from", "", "REST root of a TEC site to mirror (https://site.example/wp-json); its records become read-only here", &c.MirrorFrom},
		{"CALENDAR_MIRROR_USER", "mirror-user", "", "login of a user of the mirrored site, to mirror its unpublished records too", &c.MirrorUser},
		{"CALENDAR_MIRROR_APP_PASSWORD", "mirror-app-password", "", "that user's application password", &c.MirrorAppPassword},
		{"CALENDAR_MIRROR_LANGUAGES", "mirror-languages", "", "the mirrored site's further roots, comma-separated lang=URL", &c.MirrorLanguages},
		{"CALENDAR_ICS_FROM", "ics-from", "", "iCalendar file or http(s) feed URL to mirror on the mirror's interval; its events become read-only here", &c.ICSFrom},
		{"CALENDAR_ETCD_ENDPOINTS", "etcd-endpoints", "", "comma-separated client URLs of an etcd cluster: when set, the records live there (cluster mode, preview) and data-dir holds only the indexes", &c.EtcdEndpoints},
		{"CALENDAR_ETCD_PREFIX", "etcd-prefix", etcdkv.DefaultPrefix, "prefix of every etcd key of this service", &c.EtcdPrefix},
		{"CALENDAR_ETCD_CA", "etcd-ca", "", "PEM file of the CA of the etcd members' certificates (TLS)", &c.EtcdCA},
		{"CALENDAR_ETCD_CERT", "etcd-cert", "", "PEM file of this client's certificate for etcd (TLS, with etcd-key)", &c.EtcdCert},
		{"CALENDAR_ETCD_KEY", "etcd-key", "", "PEM file of this client's key for etcd (TLS, with etcd-cert)", &c.EtcdKey},
		{"CALENDAR_ETCD_USER", "etcd-user", "", "etcd user (with etcd-password)", &c.EtcdUser},
		{"CALENDAR_ETCD_PASSWORD", "etcd-password", "", "that etcd user's password", &c.EtcdPassword},
		{"CALENDAR_NOW", "now", "", "test hook: RFC 3339 instant that freezes the clock", &c.Now},
	}
}

// parseConfig reads flags (args) over variables (getenv) over defaults, then validates.
func parseConfig(name string, args []string, getenv func(string) string, stderr io.Writer) (Config, error) {
	var c Config
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	for _, s := range c.settings() {
		def := s.def
		if v := getenv(s.env); v != "" {
			def = v
		}
		fs.StringVar(s.dst, s.flag, def, s.usage+" ("+s.env+")")
	}
	maxBody := fs.String("max-body-bytes", envOr(getenv, "CALENDAR_MAX_BODY_BYTES", "1048576"), "request body limit (CALENDAR_MAX_BODY_BYTES)")
	rate := fs.String("rate-limit-per-minute", envOr(getenv, "CALENDAR_RATE_LIMIT_PER_MINUTE", "0"), "requests per minute per client, 0 = off (CALENDAR_RATE_LIMIT_PER_MINUTE)")
	writeRate := fs.String("write-rate-limit-per-minute", envOr(getenv, "CALENDAR_WRITE_RATE_LIMIT_PER_MINUTE", strconv.Itoa(handlers.DefaultWriteRateLimitPerMinute)),
		"writes per minute per user below editor, 0 = off (CALENDAR_WRITE_RATE_LIMIT_PER_MINUTE)")
	seriesPerHour := fs.String("series-per-hour", envOr(getenv, "CALENDAR_SERIES_PER_HOUR", strconv.Itoa(handlers.DefaultSeriesPerHour)),
		"new recurring series per hour per user below editor, 0 = off (CALENDAR_SERIES_PER_HOUR)")
	feedsPerClient := fs.String("feeds-per-client", envOr(getenv, "CALENDAR_FEEDS_PER_CLIENT", strconv.Itoa(handlers.DefaultFeedsPerClient)),
		"iCalendar feed answers in flight per client at a time, 0 = off (CALENDAR_FEEDS_PER_CLIENT)")
	authFailures := fs.String("auth-failures-per-minute", envOr(getenv, "CALENDAR_AUTH_FAILURES_PER_MINUTE", "10"),
		"failed authentications per minute per client address and login before 429, 0 = off (CALENDAR_AUTH_FAILURES_PER_MINUTE)")
	demo := fs.String("demo-events", envOr(getenv, "CALENDAR_DEMO_EVENTS", "0"), "generated events to seed into a store without events at start-up, 0 = off (CALENDAR_DEMO_EVENTS)")
	horizon := fs.String("changes-horizon", envOr(getenv, "CALENDAR_CHANGES_HORIZON", "168h"),
		"how long change-feed cursors stay valid: change-log entries are kept at least this long, 0 = only until the index has them; at least 1h in cluster mode (CALENDAR_CHANGES_HORIZON)")
	seriesPast := fs.String("series-past", envOr(getenv, "CALENDAR_SERIES_PAST", "24"),
		"months before today whose occurrences a series keeps as events (CALENDAR_SERIES_PAST)")
	seriesHorizon := fs.String("series-horizon", envOr(getenv, "CALENDAR_SERIES_HORIZON", "24"),
		"months ahead whose occurrences a series materialises (CALENDAR_SERIES_HORIZON)")
	seriesMaxText := fs.String("series-max-text-bytes", envOr(getenv, "CALENDAR_SERIES_MAX_TEXT_BYTES", strconv.Itoa(storage.DefaultSeriesMaxText)),
		"bytes of text a series may copy into its occurrences: their number times its title, excerpt and description (CALENDAR_SERIES_MAX_TEXT_BYTES)")
	memory := fs.String("memory-mb", envOr(getenv, "CALENDAR_MEMORY_MB", strconv.Itoa(DefaultMemoryMB)),
		"memory budget in MiB: the caches' bounds and the Go runtime's soft limit, 0 = none (CALENDAR_MEMORY_MB)")
	mirrorInterval := fs.String("mirror-interval", envOr(getenv, "CALENDAR_MIRROR_INTERVAL", "5m"), "interval of the syncs of CALENDAR_MIRROR_FROM and CALENDAR_ICS_FROM (CALENDAR_MIRROR_INTERVAL)")
	mirrorFullEvery := fs.String("mirror-full-every", envOr(getenv, "CALENDAR_MIRROR_FULL_EVERY", defaultMirrorFullEvery),
		"longest time between two complete walks of CALENDAR_MIRROR_FROM's lists, which bring edits to past events (CALENDAR_MIRROR_FULL_EVERY)")
	mirrorTimeout := fs.String("mirror-timeout", envOr(getenv, "CALENDAR_MIRROR_TIMEOUT", mirror.DefaultTimeout.String()),
		"bound of each request of either mirror to its source, from connecting to the end of the body (CALENDAR_MIRROR_TIMEOUT)")
	webhookTimeout := fs.String("webhook-timeout", envOr(getenv, "CALENDAR_WEBHOOK_TIMEOUT", webhook.DefaultTimeout.String()),
		"bound of each webhook delivery, from connecting to the receiver's answer (CALENDAR_WEBHOOK_TIMEOUT)")
	webhookRetries := fs.String("webhook-retries", envOr(getenv, "CALENDAR_WEBHOOK_RETRIES", durations(webhook.DefaultSchedule)),
		"waits before the retries of a failed webhook delivery, each ±20 %; after the last the webhook is disabled (CALENDAR_WEBHOOK_RETRIES)")
	etcdTimeout := fs.String("etcd-timeout", envOr(getenv, "CALENDAR_ETCD_TIMEOUT", etcdkv.DefaultRequestTimeout.String()),
		"bound of the first contact with etcd and of each request to it (CALENDAR_ETCD_TIMEOUT)")
	etcdMaxOps := fs.String("etcd-max-txn-ops", envOr(getenv, "CALENDAR_ETCD_MAX_TXN_OPS", strconv.Itoa(etcdkv.DefaultMaxTxnOps)),
		"the etcd cluster's --max-txn-ops: operations in one transaction (CALENDAR_ETCD_MAX_TXN_OPS)")
	etcdMaxBytes := fs.String("etcd-max-request-bytes", envOr(getenv, "CALENDAR_ETCD_MAX_REQUEST_BYTES", strconv.Itoa(etcdkv.DefaultMaxRequestBytes)),
		"the etcd cluster's --max-request-bytes: bytes of one transaction (CALENDAR_ETCD_MAX_REQUEST_BYTES)")
	fs.StringVar(&c.CPUProfile, "cpuprofile", "", "write a CPU profile of the run to this file (for measuring)")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	var err error
	if c.MaxBodyBytes, err = strconv.ParseInt(*maxBody, 10, 64); err != nil || c.MaxBodyBytes <= 0 {
		return c, errors.New("max-body-bytes must be a positive integer")
	}
	if c.RateLimitPerMinute, err = strconv.Atoi(*rate); err != nil || c.RateLimitPerMinute < 0 {
		return c, errors.New("rate-limit-per-minute must be a non-negative integer")
	}
	if c.WriteRateLimitPerMinute, err = strconv.Atoi(*writeRate); err != nil || c.WriteRateLimitPerMinute < 0 {
		return c, errors.New("write-rate-limit-per-minute must be a non-negative integer")
	}
	if c.SeriesPerHour, err = strconv.Atoi(*seriesPerHour); err != nil || c.SeriesPerHour < 0 {
		return c, errors.New("series-per-hour must be a non-negative integer")
	}
	if c.FeedsPerClient, err = strconv.Atoi(*feedsPerClient); err != nil || c.FeedsPerClient < 0 {
		return c, errors.New("feeds-per-client must be a non-negative integer")
	}
	if c.AuthFailuresPerMinute, err = strconv.Atoi(*authFailures); err != nil || c.AuthFailuresPerMinute < 0 ||
		c.AuthFailuresPerMinute > handlers.MaxAuthFailuresPerMinute {
		return c, fmt.Errorf("auth-failures-per-minute must be an integer from 0 (off) to %d", handlers.MaxAuthFailuresPerMinute)
	}
	if c.MemoryMB, err = strconv.Atoi(*memory); err != nil || (c.MemoryMB != 0 && c.MemoryMB < minMemoryMB) {
		return c, fmt.Errorf("memory-mb must be 0 (no budget) or an integer of at least %d", minMemoryMB)
	}
	c.memoryDefault = getenv("CALENDAR_MEMORY_MB") == ""
	fs.Visit(func(f *flag.Flag) { c.memoryDefault = c.memoryDefault && f.Name != "memory-mb" })
	if c.DemoEvents, err = strconv.Atoi(*demo); err != nil || c.DemoEvents < 0 {
		return c, errors.New("demo-events must be a non-negative integer")
	}
	if c.ChangesHorizon, err = time.ParseDuration(*horizon); err != nil || c.ChangesHorizon < 0 {
		return c, errors.New("changes-horizon must be a duration such as 168h, or 0")
	}
	for _, m := range []struct {
		name string
		v    *string
		dst  *int
	}{{"series-past", seriesPast, &c.SeriesPast}, {"series-horizon", seriesHorizon, &c.SeriesHorizon}} {
		if *m.dst, err = strconv.Atoi(*m.v); err != nil || *m.dst < 1 || *m.dst > 120 {
			return c, fmt.Errorf("%s must be a number of months from 1 to 120", m.name)
		}
	}
	if c.SeriesMaxText, err = strconv.Atoi(*seriesMaxText); err != nil || c.SeriesMaxText < 1 {
		return c, errors.New("series-max-text-bytes must be a positive integer")
	}
	if c.MirrorInterval, err = time.ParseDuration(*mirrorInterval); err != nil || c.MirrorInterval <= 0 {
		return c, errors.New("mirror-interval must be a positive duration such as 5m")
	}
	if c.MirrorFullEvery, err = parseFullEvery(*mirrorFullEvery); err != nil {
		return c, fmt.Errorf("mirror-full-every %w", err)
	}
	if c.MirrorTimeout, err = parseTimeout(*mirrorTimeout); err != nil {
		return c, fmt.Errorf("mirror-%w", err)
	}
	if c.WebhookTimeout, err = parseTimeout(*webhookTimeout); err != nil {
		return c, fmt.Errorf("webhook-%w", err)
	}
	if c.WebhookRetries, err = parseDurations(*webhookRetries); err != nil {
		return c, fmt.Errorf("webhook-retries: %w", err)
	}
	if c.EtcdTimeout, err = time.ParseDuration(*etcdTimeout); err != nil || c.EtcdTimeout <= 0 {
		return c, errors.New("etcd-timeout must be a positive duration such as 5s")
	}
	if c.EtcdMaxTxnOps, err = strconv.Atoi(*etcdMaxOps); err != nil || c.EtcdMaxTxnOps < 1 {
		return c, errors.New("etcd-max-txn-ops must be a positive integer")
	}
	if c.EtcdMaxRequestBytes, err = strconv.Atoi(*etcdMaxBytes); err != nil || c.EtcdMaxRequestBytes < 1 {
		return c, errors.New("etcd-max-request-bytes must be a positive integer")
	}
	return c, c.validate()
}

// defaultMirrorFullEvery is CALENDAR_MIRROR_FULL_EVERY's default (tec.DefaultFullEvery).
const defaultMirrorFullEvery = "24h"

// parseFullEvery reads the time between two complete walks of a mirrored site's lists.
func parseFullEvery(s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, errors.New("must be a positive duration such as 24h")
	}
	return d, nil
}

// durations writes ds as a comma-separated list, which parseDurations reads.
func durations(ds []time.Duration) string {
	parts := make([]string, len(ds))
	for i, d := range ds {
		parts[i] = d.String()
	}
	return strings.Join(parts, ",")
}

// parseDurations reads a comma-separated list of at least one positive duration.
func parseDurations(s string) ([]time.Duration, error) {
	var out []time.Duration
	for f := range strings.SplitSeq(s, ",") {
		d, err := time.ParseDuration(strings.TrimSpace(f))
		if err != nil || d <= 0 {
			return nil, fmt.Errorf("%q is not a positive duration such as 5m", f)
		}
		out = append(out, d)
	}
	return out, nil
}

func envOr(getenv func(string) string, key, def string) string {
	if v := getenv(key); v != "" {
		return v
	}
	return def
}

func (c *Config) validate() error {
	var err error
	if c.siteZone, err = datetime.ParseZone(c.SiteTimezone); err != nil {
		return fmt.Errorf("site-timezone: %w", err)
	}
	if _, ok := storage.ParseLang(c.DefaultLanguage); !ok {
		return fmt.Errorf("default-language must be one of nl, en, fr, de, it, pl, es")
	}
	if err := c.logLevel.Set(c.LogLevel); err != nil || c.logLevel > zapcore.ErrorLevel {
		return errors.New("log-level must be debug, info, warn or error")
	}
	if c.LogFormat != "json" && c.LogFormat != "console" {
		return errors.New("log-format must be json or console")
	}
	if c.CurrencyPosition != "prefix" && c.CurrencyPosition != "postfix" {
		return errors.New("currency-position must be prefix or postfix")
	}
	if c.BaseURL != "" {
		c.BaseURL = strings.TrimSuffix(c.BaseURL, "/")
		u, err := url.Parse(c.BaseURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return errors.New("base-url must be scheme://host[:port][/path]")
		}
	}
	if c.trustedOrigins, err = parseOrigins(c.CORSTrustedOrigins); err != nil {
		return err
	}
	if c.trustedProxies, err = handlers.ParseProxies(c.TrustedProxies); err != nil {
		return fmt.Errorf("trusted-proxies: %w", err)
	}
	if c.MirrorFrom != "" {
		c.mirror = mirrorConfig{From: c.MirrorFrom, User: c.MirrorUser, AppPassword: c.MirrorAppPassword, FullEvery: c.MirrorFullEvery,
			Timeout: c.MirrorTimeout}
		for _, l := range strings.Split(c.MirrorLanguages, ",") {
			if l = strings.TrimSpace(l); l != "" {
				c.mirror.Languages = append(c.mirror.Languages, l)
			}
		}
		if _, err := c.mirror.roots(storage.Lang(c.DefaultLanguage)); err != nil {
			return fmt.Errorf("mirror: %w", err)
		}
	}
	if c.ICSFrom != "" {
		if err := checkICSFrom(c.ICSFrom); err != nil {
			return fmt.Errorf("ics-from: %w", err)
		}
	}
	if c.etcd, err = c.etcdConfig(); err != nil {
		return err
	}
	if c.Now != "" {
		if c.now, err = time.Parse(time.RFC3339, c.Now); err != nil {
			return fmt.Errorf("now must be an RFC 3339 instant: %w", err)
		}
	}
	return nil
}

// etcdConfig checks the Etcd* settings: none but the prefix without endpoints, a certificate with its
// key, a user with a password, and endpoints that are URLs, so that a typo fails start-up rather than
// every request.
func (c *Config) etcdConfig() (*etcdkv.Config, error) {
	var endpoints []string
	for _, e := range strings.Split(c.EtcdEndpoints, ",") {
		if e = strings.TrimSpace(e); e == "" {
			continue
		}
		u, err := url.Parse(e)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("etcd-endpoints: %q is not a URL http(s)://host:port", e)
		}
		endpoints = append(endpoints, e)
	}
	if len(endpoints) == 0 {
		if c.EtcdCA != "" || c.EtcdCert != "" || c.EtcdKey != "" || c.EtcdUser != "" || c.EtcdPassword != "" {
			return nil, errors.New("etcd-ca, etcd-cert, etcd-key, etcd-user and etcd-password need etcd-endpoints")
		}
		return nil, nil
	}
	if (c.EtcdCert == "") != (c.EtcdKey == "") {
		return nil, errors.New("etcd-cert and etcd-key go together")
	}
	if (c.EtcdUser == "") != (c.EtcdPassword == "") {
		return nil, errors.New("etcd-user and etcd-password go together")
	}
	if c.EtcdPrefix == "" {
		return nil, errors.New("etcd-prefix must not be empty")
	}
	return &etcdkv.Config{Endpoints: endpoints, Prefix: c.EtcdPrefix, CAFile: c.EtcdCA, CertFile: c.EtcdCert,
		KeyFile: c.EtcdKey, Username: c.EtcdUser, Password: c.EtcdPassword,
		DialTimeout: c.EtcdTimeout, RequestTimeout: c.EtcdTimeout, MaxTxnOps: c.EtcdMaxTxnOps, MaxRequestBytes: c.EtcdMaxRequestBytes}, nil
}

// parseOrigins reads a comma-separated list of origins. Blanks around an entry, and empty entries
// (a trailing comma), are allowed; anything else that is not an origin aborts start-up, since an origin
// that silently never matches would be a trust the operator believes in and does not get.
func parseOrigins(list string) ([]string, error) {
	var origins []string
	for _, s := range strings.Split(list, ",") {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		o, err := handlers.ParseOrigin(s)
		if err != nil {
			return nil, fmt.Errorf("cors-trusted-origins: %q is not an origin scheme://host[:port]: %w", s, err)
		}
		origins = append(origins, o)
	}
	return origins, nil
}

func (c *Config) clock() func() time.Time {
	if c.now.IsZero() {
		return time.Now
	}
	frozen := c.now
	return func() time.Time { return frozen }
}

// handlerConfig is the API's configuration, its caches at their shares of budget b: the configured
// budget (Config.budget), or once the index has loaded, the one fitted to the calendar
// (memoryBudget.fit).
func (c *Config) handlerConfig(b memoryBudget) handlers.Config {
	return handlers.Config{
		BaseURL:                 c.BaseURL,
		DefaultLang:             storage.Lang(c.DefaultLanguage),
		SiteName:                c.SiteName,
		CurrencySymbol:          c.CurrencySymbol,
		CurrencyPosition:        c.CurrencyPosition,
		CurrencyCode:            c.CurrencyCode,
		MaxBodyBytes:            c.MaxBodyBytes,
		RateLimitPerMinute:      c.RateLimitPerMinute,
		WriteRateLimitPerMinute: c.WriteRateLimitPerMinute,
		SeriesPerHour:           c.SeriesPerHour,
		FeedsPerClient:          c.FeedsPerClient,
		TrustedOrigins:          c.trustedOrigins,
		TrustedProxies:          c.trustedProxies,
		AuthFailuresPerMinute:   c.AuthFailuresPerMinute,
		ServeMetrics:            c.MetricsAddr == "",
		ListCacheBytes:          b.lists,
		ItemCacheBytes:          b.items,
	}
}

func (c *Config) budget() memoryBudget {
	b := splitBudget(c.MemoryMB)
	b.grows = c.memoryDefault
	return b
}
