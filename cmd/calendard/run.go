package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"slices"
	"strings"
	"text/tabwriter"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/calendard/calendard/handlers"
	"github.com/calendard/calendard/jobs/webhook"
	"github.com/calendard/calendard/storage"
)

const usage = `usage: calendard <command> [flags]

commands:
  serve                   run the service (default)
  user create             --login L --email E --role R [--display-name N]
  user list
  app-password create     --user L [--name LABEL]   (prints the password once)
  app-password revoke     --user L --name LABEL
  webhook create          --url URL [--as LOGIN] [--types event,venue,organizer,category,tag] [--lang fr,de]
                          [--allow-http] [--allow-private]   (prints the ID and the secret, once)
  webhook list
  webhook disable|enable|delete|rotate-secret|test ID
                          (rotate-secret prints the new secret; the old one signs beside it for 24h;
                          test sends a signed calendar.test message and prints the answer)
  trash                   --type event|venue|organizer --id N   (moves a record to the trash as DELETE does;
                          works while the index loads, when the API cannot)
  seed                    --events N [--seed S]   (adds a generated calendar; the server must be stopped)
  import tec              --from URL [--user L --app-password P] [--language fr=URL ...] [--follow 5m] [--timeout 30s] [--dry-run]
                          (mirrors a The Events Calendar site; the server must be stopped)
  import ics              FILE|URL [--language L] [--follow 1h] [--timeout 30s] [--dry-run]
                          (imports an iCalendar file or feed; the server must be stopped; exits 2 when
                          some events failed and the others were imported)
  reindex                 drop and rebuild the search indexes from the store (the server must be stopped)
  run-job NAME            run one job now: publish-due, extend-series, trim-changes, consistency-check, prepare-boundary (the server must be stopped)
  backup                  --to FILE [--progress-every D]   (a consistent copy of the store; a running server writes it)
  restore                 --from FILE [--progress-every D]   (installs a backup; the server must be stopped)
  migrate --to-etcd       copies calendar.db into the etcd cluster of CALENDAR_ETCD_* (the server must be stopped)
  doc                     prints the OpenAPI document of the API (GET {ns}/doc) for --base-url
  healthcheck             exits 0 when the server on --listen-addr answers GET /healthz with 200
  version

Every command takes --data-dir and the other flags of serve; run "calendard serve -h" for them.`

// run is the whole program; main only adds the process around it.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	cmd := "serve"
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "serve":
		return serve(ctx, args, getenv, stderr)
	case "user", "app-password", "webhook":
		if len(args) == 0 {
			return fmt.Errorf("%s needs a subcommand; run calendard help", cmd)
		}
		return admin(ctx, cmd+" "+args[0], args[1:], getenv, stdout, stderr)
	case "trash":
		return admin(ctx, cmd, args, getenv, stdout, stderr)
	case "seed":
		return seed(ctx, args, getenv, stdout, stderr)
	case "import":
		return importCmd(ctx, args, getenv, stdout, stderr)
	case "reindex":
		return reindex(ctx, args, getenv, stdout, stderr)
	case "run-job":
		return runJob(ctx, args, getenv, stdout, stderr)
	case "backup":
		return backup(ctx, args, getenv, stdout, stderr)
	case "restore":
		return restore(ctx, args, getenv, stdout, stderr)
	case "migrate":
		return migrate(ctx, args, getenv, stdout, stderr)
	case "doc":
		return printDoc(args, getenv, stdout, stderr)
	case "healthcheck":
		return healthcheck(ctx, args, getenv, stdout, stderr)
	case "version":
		fmt.Fprintln(stdout, version)
		return nil
	case "help", "-h", "--help":
		fmt.Fprintln(stdout, usage)
		return nil
	}
	return fmt.Errorf("unknown command %q; run calendard help", cmd)
}

// docOrigin is the origin `calendard doc` writes into the document without a --base-url.
const docOrigin = "http://127.0.0.1:8080"

// printDoc prints the OpenAPI document, indented for reading and diffing (docs/openapi.json is its
// output).
func printDoc(args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	cfg, err := parseConfig("doc", args, getenv, stderr)
	if err != nil {
		return err
	}
	origin := cmp.Or(cfg.BaseURL, docOrigin)
	doc, err := handlers.OpenAPI(cfg.handlerConfig(cfg.budget()), origin)
	if err != nil {
		return err
	}
	var out bytes.Buffer
	if err := json.Indent(&out, doc, "", "  "); err != nil {
		return err
	}
	out.WriteByte('\n')
	_, err = out.WriteTo(stdout)
	return err
}

// newLogger builds the process's logger from the configuration, writing to out: JSON lines (or a
// console form for people) with ISO-8601 timestamps, at the configured level. Stack traces are off:
// expected conditions are logged without one, and a panic's recovery adds its own.
func newLogger(c Config, out io.Writer) *zap.Logger {
	return newLoggerOn(c, zapcore.Lock(zapcore.AddSync(out)))
}

// newServeLogger is newLogger for serve, whose lines are buffered (logBuffer) unless out is a
// terminal, where a person watches and the load's progress bar draws between them. It returns the
// writer serve's other messages to out go through, so that they keep their place among the lines, and
// stop, which writes out what the buffer holds and ends the buffering: serve calls it on every exit.
// A line at warn level or above is written at once, with those before it.
func newServeLogger(c Config, out io.Writer) (log *zap.Logger, stderr io.Writer, stop func()) {
	if isTerminal(out) {
		return newLogger(c, out), out, func() {}
	}
	buf := newLogBuffer(out, logFlushInterval, logBufferBytes)
	flushWarnings := zap.Hooks(func(e zapcore.Entry) error {
		if e.Level >= zapcore.WarnLevel {
			return buf.Flush()
		}
		return nil
	})
	return newLoggerOn(c, buf).WithOptions(flushWarnings), buf, func() { _ = buf.Stop() }
}

// newLoggerOn builds the logger newLogger describes on sink, which must be safe for concurrent use.
func newLoggerOn(c Config, sink zapcore.WriteSyncer) *zap.Logger {
	var encoder zapcore.Encoder = newLineEncoder()
	if c.LogFormat == "console" {
		enc := logEncoderConfig()
		enc.EncodeLevel = zapcore.CapitalLevelEncoder
		encoder = zapcore.NewConsoleEncoder(enc)
	}
	return zap.New(zapcore.NewCore(encoder, sink, c.logLevel), zap.AddCaller(), zap.ErrorOutput(sink))
}

// profile starts the CPU profile the flags ask for; stop ends it and closes its file.
func (c *Config) profile() (stop func(), err error) {
	if c.CPUProfile == "" {
		return func() {}, nil
	}
	f, err := os.Create(c.CPUProfile)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}

func serve(ctx context.Context, args []string, getenv func(string) string, stderr io.Writer) error {
	cfg, err := parseConfig("serve", args, getenv, stderr)
	if err != nil {
		return err
	}
	stop, err := cfg.profile()
	if err != nil {
		return err
	}
	defer stop()
	log, stderr, stopLog := newServeLogger(cfg, stderr)
	// Deferred before a.close, so it runs after: the lines of the shutdown are written too.
	defer stopLog()
	a, err := open(ctx, cfg, log, stderr)
	if err != nil {
		return err
	}
	a.limitMemory = true
	defer a.close()
	if err := a.listen(); err != nil {
		return err
	}
	return a.serve(ctx)
}

// admin runs the operator commands (README "Users"): through the control socket of a server running on
// the data directory, or on the store itself when none is.
func admin(ctx context.Context, cmd string, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
	fs.SetOutput(stderr)
	var a adminArgs
	fs.StringVar(&a.Login, "login", "", "login of the new user")
	fs.StringVar(&a.Email, "email", "", "e-mail of the new user")
	fs.StringVar(&a.Role, "role", "", "role: administrator, editor, author, contributor, subscriber")
	fs.StringVar(&a.DisplayName, "display-name", "", "display name (defaults to the login)")
	fs.StringVar(&a.User, "user", "", "login of the user")
	fs.StringVar(&a.Name, "name", "", "label of the application password")
	fs.StringVar(&a.Type, "type", "", "type of the record: event, venue or organizer")
	fs.Uint64Var(&a.ID, "id", 0, "ID of the record")
	fs.StringVar(&a.URL, "url", "", "URL the webhook delivers to (https)")
	fs.StringVar(&a.As, "as", "", "login of the user whose visibility the webhook has (default: anonymous, published records only)")
	fs.StringVar(&a.Types, "types", "", "kinds of changes the webhook delivers: event,venue,organizer,category,tag (default: all)")
	fs.StringVar(&a.Langs, "lang", "", "languages of the records the webhook delivers, e.g. fr,de (default: all)")
	fs.BoolVar(&a.AllowHTTP, "allow-http", false, "allow a plain http:// URL")
	fs.BoolVar(&a.AllowPrivate, "allow-private", false, "allow a loopback, private or link-local receiver address")
	dataDir := fs.String("data-dir", envOr(getenv, "CALENDAR_DATA_DIR", "./data"), "directory holding all state (CALENDAR_DATA_DIR)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if !knownAdminCommand(cmd) {
		return fmt.Errorf("unknown command %q; run calendard help", cmd)
	}
	if strings.HasPrefix(cmd, "webhook ") {
		rest := fs.Args()
		// The ID may come before the flags: calendard webhook disable 3 --data-dir /srv/calendar.
		if len(rest) > 0 && !strings.HasPrefix(rest[0], "-") {
			if err := fs.Parse(rest[1:]); err != nil {
				return err
			}
			rest = append(rest[:1:1], fs.Args()...)
		}
		if err := webhookID(cmd, rest, &a); err != nil {
			return err
		}
	}
	if cmd == "trash" {
		// Checked here too, so that a mistyped command neither reaches a server nor opens the store.
		if _, err := trashTarget(a); err != nil {
			return err
		}
	}
	cfg, err := parseConfig(cmd, []string{"--data-dir", *dataDir}, getenv, stderr)
	if err != nil {
		return err
	}
	if served, err := callControl(ctx, cfg.DataDir, controlRequest{Cmd: cmd, Args: a}, commandTimeout(cmd, cfg.WebhookTimeout), stdout, nil); served {
		return err
	}
	db, err := openStore(cfg, zap.NewNop())
	if err != nil {
		return err
	}
	defer db.Close()
	return runAdmin(ctx, db, newDeliverer(cfg, db, zap.NewNop()), cmd, a, stdout)
}

// adminArgs are the flags of the operator commands; they travel over the control socket as JSON.
type adminArgs struct {
	Login, Email, Role, DisplayName, User, Name string
	// Type and ID name the record of trash.
	Type string
	ID   uint64
	// URL, As, Types, Langs, AllowHTTP and AllowPrivate are webhook create's; the other webhook
	// commands take ID.
	URL, As, Types, Langs   string
	AllowHTTP, AllowPrivate bool
}

var adminCommands = append([]string{"user create", "user list", "app-password create", "app-password revoke", "trash"}, webhookCommands...)

func knownAdminCommand(cmd string) bool { return slices.Contains(adminCommands, cmd) }

// runAdmin carries out an operator command on an open store, with d the webhooks' deliverer; the CLI
// and the control socket share it.
func runAdmin(ctx context.Context, db *storage.DB, d *webhook.Deliverer, cmd string, a adminArgs, stdout io.Writer) error {
	if strings.HasPrefix(cmd, "webhook ") {
		return runWebhook(ctx, db, d, cmd, a, stdout)
	}
	switch cmd {
	case "user create":
		u, err := db.CreateUser(ctx, storage.User{Login: a.Login, Email: a.Email, Role: storage.Role(a.Role), DisplayName: a.DisplayName})
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "created user %d (%s)\n", u.ID, u.Login)
	case "user list":
		users, err := db.Users(ctx)
		if err != nil {
			return err
		}
		tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tLOGIN\tEMAIL\tROLE\tDISPLAY NAME")
		for _, u := range users {
			fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\n", u.ID, u.Login, u.Email, u.Role, u.DisplayName)
		}
		return tw.Flush()
	case "app-password create":
		if a.Name == "" {
			a.Name = "default"
		}
		pw, err := db.CreateAppPassword(ctx, a.User, a.Name)
		if err != nil {
			return err
		}
		fmt.Fprintln(stdout, pw)
	case "app-password revoke":
		return db.RevokeAppPassword(ctx, a.User, a.Name)
	case "trash":
		return trashRecord(ctx, db, a, stdout)
	default:
		return fmt.Errorf("unknown command %q; run calendard help", cmd)
	}
	return nil
}
