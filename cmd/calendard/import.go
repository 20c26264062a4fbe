package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/calendard/calendard/jobs/mirror"
	"github.com/calendard/calendard/jobs/mirror/tec"
	"github.com/calendard/calendard/storage"
)

var _ tec.Store = (*storage.DB)(nil)

// importSources are the sources `calendard import` knows, each with its command.
var importSources = map[string]func(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error{
	"tec": importTEC,
}

// importCmd implements "calendard import SOURCE [flags]".
func importCmd(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) == 0 || importSources[args[0]] == nil {
		return errors.New("import needs a source: tec; run calendard help")
	}
	return importSources[args[0]](ctx, args[1:], getenv, stdout, stderr)
}

// mirrorConfig is what a TEC mirror needs: the import command's flags, or serve's CALENDAR_MIRROR_*.
type mirrorConfig struct {
	// From is the site's REST root (…/wp-json), imported into the default language.
	From string
	// User and AppPassword authenticate as a site user (HTTP Basic with an application password).
	User, AppPassword string
	// Languages are further roots, lang=URL each.
	Languages []string
}

// roots checks the configuration and lists the site's roots with their languages.
func (m mirrorConfig) roots(defaultLang storage.Lang) ([]tec.Root, error) {
	roots := []tec.Root{{URL: m.From, Lang: defaultLang}}
	for _, l := range m.Languages {
		code, u, ok := strings.Cut(strings.TrimSpace(l), "=")
		lang, known := storage.ParseLang(code)
		if !ok || !known {
			return nil, fmt.Errorf("language %q: want lang=URL with lang one of nl, en, fr, de, it, pl, es", l)
		}
		roots = append(roots, tec.Root{URL: u, Lang: lang})
	}
	seen := map[storage.Lang]bool{}
	for _, r := range roots {
		u, err := url.Parse(r.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("%q is not a site's REST root (http[s]://host/wp-json)", r.URL)
		}
		if seen[r.Lang] {
			return nil, fmt.Errorf("two roots for language %s", r.Lang)
		}
		seen[r.Lang] = true
	}
	if m.User != "" && m.AppPassword == "" || m.User == "" && m.AppPassword != "" {
		return nil, errors.New("the site's user and application password go together")
	}
	return roots, nil
}

// importer builds the mirror of the site, writing as actor.
func (m mirrorConfig) importer(db *storage.DB, actor storage.Actor, defaultLang storage.Lang) (*tec.Importer, error) {
	roots, err := m.roots(defaultLang)
	if err != nil {
		return nil, err
	}
	for i := range roots {
		roots[i].URL = strings.TrimSuffix(roots[i].URL, "/")
	}
	return &tec.Importer{Store: db, Actor: actor, Roots: roots, Get: &mirror.Getter{User: m.User, Password: m.AppPassword}}, nil
}

// importTEC implements "calendard import tec": one sync of a TEC site into the store, or with
// --follow one now and one per interval until interrupted. The server must be stopped (the store is
// one process's); serve mirrors by itself with CALENDAR_MIRROR_FROM.
func importTEC(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("import tec", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var m mirrorConfig
	fs.StringVar(&m.From, "from", "", "the site's REST root, e.g. https://site.example/wp-json (required)")
	fs.StringVar(&m.User, "user", "", "login of a site user, to import unpublished records too")
	fs.StringVar(&m.AppPassword, "app-password", "", "that user's application password")
	fs.Func("language", "a further root and its language, lang=URL (repeatable), e.g. fr=https://site.example/fr/wp-json", func(s string) error {
		m.Languages = append(m.Languages, s)
		return nil
	})
	follow := fs.Duration("follow", 0, "keep running, syncing again at this interval (e.g. 5m)")
	dryRun := fs.Bool("dry-run", false, "write nothing; report what would change")
	dataDir := fs.String("data-dir", envOr(getenv, "CALENDAR_DATA_DIR", "./data"), "directory holding all state (CALENDAR_DATA_DIR)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	switch {
	case fs.NArg() > 0:
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	case m.From == "":
		return errors.New("import tec needs --from, the site's REST root")
	case *follow < 0:
		return errors.New("follow must be a positive interval")
	}
	cfg, err := parseConfig("import", []string{"--data-dir", *dataDir}, getenv, stderr)
	if err != nil {
		return err
	}
	if _, err := m.roots(storage.Lang(cfg.DefaultLanguage)); err != nil {
		return err
	}
	log := newLogger(cfg, stderr)
	defer func() { _ = log.Sync() }()
	db, err := openStore(cfg, log)
	if errors.Is(err, storage.ErrLocked) {
		return fmt.Errorf("%w: stop the server first, or let it mirror the site itself (CALENDAR_MIRROR_FROM)", err)
	}
	if err != nil {
		return err
	}
	defer db.Close()
	a := &app{cfg: cfg, log: log, db: db}
	if err := a.bootstrapAdmin(ctx, stderr); err != nil {
		return err
	}
	actor, err := firstAdministrator(ctx, db)
	if err != nil {
		return err
	}
	im, err := m.importer(db, actor, storage.Lang(cfg.DefaultLanguage))
	if err != nil {
		return err
	}
	opts := mirror.Options{DryRun: *dryRun, Logger: log.Named("mirror"), Now: cfg.clock()}
	if *follow > 0 {
		return mirror.Follow(ctx, im, *follow, opts)
	}
	opts.Progress = &mirror.Progress{}
	var rep *mirror.Report
	err = showProgress(stderr, opts.Progress.Snapshot, func() (err error) {
		rep, err = mirror.RunLogged(ctx, im, opts)
		return err
	})
	printReport(stdout, rep, *dryRun)
	if err != nil {
		return err
	}
	// The index is derived data: rebuilt from the store in bulk at the next start, which is much
	// faster than replaying a long change log one entry at a time (as seed does).
	if !*dryRun && rep.Added > 0 {
		if err := os.RemoveAll(filepath.Join(cfg.DataDir, "index")); err != nil {
			return fmt.Errorf("remove the index: %w", err)
		}
	}
	return nil
}

// printReport writes a run's summary and its failures, one a line.
func printReport(w io.Writer, rep *mirror.Report, dryRun bool) {
	if rep == nil {
		return
	}
	prefix := ""
	if dryRun {
		prefix = "dry run, nothing written: "
	}
	fmt.Fprintf(w, "%s%s: %s in %d requests, %s\n", prefix, rep.Source, rep, rep.Requests, rep.Took.Round(time.Millisecond))
	for _, f := range rep.Failures {
		fmt.Fprintf(w, "failed: %s %s: %s\n", f.Kind, f.ID, f.Reason)
	}
}

// startMirror runs the configured mirror (CALENDAR_MIRROR_FROM) on its schedule until the returned
// stop function is called; stop waits for a run in progress to end.
func (a *app) startMirror(ctx context.Context) (stop func(), err error) {
	actor, err := firstAdministrator(ctx, a.db)
	if err != nil {
		return nil, err
	}
	im, err := a.cfg.mirror.importer(a.db, actor, storage.Lang(a.cfg.DefaultLanguage))
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		opts := mirror.Options{Logger: a.log.Named("mirror"), Now: a.cfg.clock(), AfterRun: a.mirrorRan}
		if err := mirror.Follow(ctx, im, a.cfg.MirrorInterval, opts); err != nil {
			a.log.Error("mirror stopped", zap.Error(err))
		}
	}()
	return func() { cancel(); <-done }, nil
}
