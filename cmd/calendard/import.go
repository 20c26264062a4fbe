package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/calendard/calendard/jobs/mirror"
	"github.com/calendard/calendard/jobs/mirror/ics"
	"github.com/calendard/calendard/jobs/mirror/tec"
	"github.com/calendard/calendard/storage"
)

var _ mirror.Store = (*storage.DB)(nil)

// importSources are the sources `calendard import` knows, each with its command.
var importSources = map[string]func(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error{
	"tec": importTEC,
	"ics": importICS,
}

// importCmd implements "calendard import SOURCE [flags]".
func importCmd(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) == 0 || importSources[args[0]] == nil {
		return errors.New("import needs a source: tec or ics; run calendard help")
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
	// FullEvery is the longest time between two complete walks of the site's lists (0: the default).
	FullEvery time.Duration
	// Timeout bounds each request to the site (mirror.Getter.Timeout).
	Timeout time.Duration
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
	return &tec.Importer{Store: db, Actor: actor, Roots: roots, Get: &mirror.Getter{User: m.User, Password: m.AppPassword, Timeout: m.Timeout},
		FullEvery: m.FullEvery, Zone: db.SiteZone().Loc}, nil
}

// importTEC implements "calendard import tec": one sync of a TEC site into the store, or with
// --follow one now and one per interval until interrupted.
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
	fullEvery := fs.String("full-every", envOr(getenv, "CALENDAR_MIRROR_FULL_EVERY", defaultMirrorFullEvery),
		"with --follow, the longest time between two complete walks of the site's lists, which bring edits to past events (CALENDAR_MIRROR_FULL_EVERY)")
	f := addImportFlags(fs, getenv)
	f.items = "records"
	if err := fs.Parse(args); err != nil {
		return err
	}
	var err error
	switch m.FullEvery, err = parseFullEvery(*fullEvery); {
	case fs.NArg() > 0:
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	case m.From == "":
		return errors.New("import tec needs --from, the site's REST root")
	case err != nil:
		return fmt.Errorf("full-every %w", err)
	}
	return f.run(ctx, getenv, stdout, stderr, "CALENDAR_MIRROR_FROM", func(db *storage.DB, actor storage.Actor, lang storage.Lang) (mirror.Source, error) {
		m.Timeout = f.timeout
		return m.importer(db, actor, lang)
	})
}

// importICS implements "calendard import ics FILE|URL": one sync of an iCalendar file or feed into
// the store, or with --follow one now and one per interval until interrupted. Flags may come before
// or after the file.
func importICS(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("import ics", flag.ContinueOnError)
	fs.SetOutput(stderr)
	language := fs.String("language", "", "language of the imported events (default: the site's, CALENDAR_DEFAULT_LANGUAGE)")
	f := addImportFlags(fs, getenv)
	if err := fs.Parse(args); err != nil {
		return err
	}
	var from string
	if fs.NArg() > 0 {
		from = fs.Arg(0)
		if err := fs.Parse(fs.Args()[1:]); err != nil {
			return err
		}
	}
	switch {
	case from == "":
		return errors.New("import ics needs the file or feed URL to import")
	case fs.NArg() > 0:
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if err := checkICSFrom(from); err != nil {
		return err
	}
	if *language != "" {
		if _, ok := storage.ParseLang(*language); !ok {
			return fmt.Errorf("language %q: want one of nl, en, fr, de, it, pl, es", *language)
		}
	}
	f.items = "events"
	return f.run(ctx, getenv, stdout, stderr, "CALENDAR_ICS_FROM", func(db *storage.DB, actor storage.Actor, lang storage.Lang) (mirror.Source, error) {
		if *language != "" {
			lang = storage.Lang(*language)
		}
		return icsImporter(db, actor, lang, from, f.timeout)
	})
}

// checkICSFrom checks the file or URL an iCalendar import reads: an http(s) URL, or a path whose
// file can be read now (a mirror's later runs report a file gone as a failed run).
func checkICSFrom(from string) error {
	if strings.HasPrefix(from, "http://") || strings.HasPrefix(from, "https://") {
		if u, err := url.Parse(from); err != nil || u.Host == "" {
			return fmt.Errorf("%q is not an http(s) URL", from)
		}
		return nil
	}
	f, err := os.Open(from)
	if err != nil {
		return err
	}
	return f.Close()
}

// icsImporter is the import of the file or feed from, writing as actor in language lang, each request
// to a feed bounded by timeout. A file is named by its absolute path, so that its links do not depend
// on the directory the command ran in.
func icsImporter(db *storage.DB, actor storage.Actor, lang storage.Lang, from string, timeout time.Duration) (*ics.Importer, error) {
	if !strings.HasPrefix(from, "http://") && !strings.HasPrefix(from, "https://") {
		abs, err := filepath.Abs(from)
		if err != nil {
			return nil, err
		}
		from = abs
	}
	return &ics.Importer{From: from, Store: db, Actor: actor, Lang: lang, Get: &mirror.Getter{Timeout: timeout}}, nil
}

// importFlags are the flags every source of `calendard import` takes.
type importFlags struct {
	follow time.Duration
	// timeoutText is --timeout as given, timeout the duration run reads from it.
	timeoutText string
	timeout     time.Duration
	dryRun      bool
	dataDir     string
	// items names what the source's report counts (events, records), in failures' error.
	items string
}

// partialStatus is the exit status of a one-off import that imported some items and failed others.
const partialStatus = 2

// failures is the error of a one-off import whose report rep counts failed items: exit status 2 when
// others were imported, 1 when none was, so that a cron job can tell a source it must look at from a
// complete import (status 0). Nil when none failed.
func (f *importFlags) failures(rep *mirror.Report) error {
	if rep.Failed == 0 {
		return nil
	}
	imported := rep.Added + rep.Updated + rep.Unchanged
	err := fmt.Errorf("%d of %d %s failed, %d imported (each failed one is listed above)", rep.Failed, rep.Failed+imported, f.items, imported)
	if imported == 0 {
		return err
	}
	return &exitError{status: partialStatus, err: err}
}

func addImportFlags(fs *flag.FlagSet, getenv func(string) string) *importFlags {
	f := &importFlags{}
	fs.DurationVar(&f.follow, "follow", 0, "keep running, syncing again at this interval (e.g. 5m)")
	fs.StringVar(&f.timeoutText, "timeout", envOr(getenv, "CALENDAR_MIRROR_TIMEOUT", mirror.DefaultTimeout.String()),
		"bound of each request to the source, from connecting to the end of the body (CALENDAR_MIRROR_TIMEOUT)")
	fs.BoolVar(&f.dryRun, "dry-run", false, "write nothing; report what would change")
	fs.StringVar(&f.dataDir, "data-dir", envOr(getenv, "CALENDAR_DATA_DIR", "./data"), "directory holding all state (CALENDAR_DATA_DIR)")
	return f
}

// run opens the data directory's store and syncs the source that build makes from it, writing as the
// first administrator into the default language: once with progress and a report, or with --follow
// once now and once per interval until interrupted. The server must be stopped (the store is one
// process's); serveVar names the setting with which serve mirrors the source itself.
//
// A data directory without a store is left as it was by a run that fails (the site unreachable, the
// run interrupted) or writes nothing (a dry run): the store it created is removed, and the directory
// too when it made it and nothing else is in it. Its next run is then a first import again.
func (f *importFlags) run(ctx context.Context, getenv func(string) string, stdout, stderr io.Writer, serveVar string,
	build func(db *storage.DB, actor storage.Actor, lang storage.Lang) (mirror.Source, error)) error {
	if f.follow < 0 {
		return errors.New("follow must be a positive interval")
	}
	var err error
	if f.timeout, err = parseTimeout(f.timeoutText); err != nil {
		return err
	}
	cfg, err := parseConfig("import", []string{"--data-dir", f.dataDir}, getenv, stderr)
	if err != nil {
		return err
	}
	log := newLogger(cfg, stderr)
	defer func() { _ = log.Sync() }()
	removeNew, err := newStoreFiles(cfg)
	if err != nil {
		return err
	}
	db, err := openStore(cfg, log)
	if errors.Is(err, storage.ErrLocked) {
		return fmt.Errorf("%w: stop the server first, or let it mirror the source itself (%s)", err, serveVar)
	}
	if err != nil {
		return errors.Join(err, removeNew())
	}
	if f.dryRun {
		return errors.Join(f.dryRunOn(ctx, cfg, log, db, stdout, stderr, build), removeNew())
	}
	err = f.sync(ctx, cfg, log, db, stdout, stderr, build)
	closeErr := db.Close()
	// A run that imported some events keeps them, whatever failed.
	if partial := (*exitError)(nil); err != nil && !errors.As(err, &partial) {
		return errors.Join(err, removeNew())
	}
	return errors.Join(err, closeErr)
}

// dryRunOn runs the import into a copy of db (closed first) in a directory of the data directory's,
// removed after. Every write of a real run is made there, so the report is a real run's, a record
// linking another the same run brings (an event and its new venue) included, and the store is left as
// it was. With --follow, each run reports what it would change after the ones before.
func (f *importFlags) dryRunOn(ctx context.Context, cfg Config, log *zap.Logger, db *storage.DB, stdout, stderr io.Writer,
	build func(db *storage.DB, actor storage.Actor, lang storage.Lang) (mirror.Source, error)) error {
	dir, err := os.MkdirTemp(cfg.DataDir, ".dry-run-")
	if err != nil {
		return errors.Join(err, db.Close())
	}
	defer os.RemoveAll(dir)
	_, err = db.BackupFile(ctx, filepath.Join(dir, storeName), nil)
	if err = errors.Join(err, db.Close()); err != nil {
		return err
	}
	scratch := cfg
	scratch.DataDir, scratch.etcd = dir, nil
	copied, err := openStore(scratch, log)
	if err != nil {
		return err
	}
	err = f.sync(ctx, scratch, log.With(zap.Bool("dry_run", true)), copied, stdout, stderr, build)
	return errors.Join(err, copied.Close())
}

// newStoreFiles returns what removes the store file (and the data directory) that opening the store
// will create, when there is none yet; else a function that removes nothing. A cluster's store is not
// in the data directory: nothing to remove there either.
func newStoreFiles(cfg Config) (remove func() error, err error) {
	nothing := func() error { return nil }
	if cfg.etcd != nil {
		return nothing, nil
	}
	_, err = os.Stat(cfg.DataDir)
	newDir := errors.Is(err, fs.ErrNotExist)
	if err != nil && !newDir {
		return nil, err
	}
	file := filepath.Join(cfg.DataDir, storeName)
	switch _, err := os.Stat(file); {
	case err == nil:
		return nothing, nil
	case !errors.Is(err, fs.ErrNotExist):
		return nil, err
	}
	return func() error {
		if err := os.Remove(file); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("remove the new store: %w", err)
		}
		if !newDir {
			return nil
		}
		if left, err := os.ReadDir(cfg.DataDir); err != nil || len(left) > 0 {
			return nil // not ours alone any more
		}
		return os.Remove(cfg.DataDir)
	}, nil
}

// sync runs the import on db (run).
func (f *importFlags) sync(ctx context.Context, cfg Config, log *zap.Logger, db *storage.DB, stdout, stderr io.Writer,
	build func(db *storage.DB, actor storage.Actor, lang storage.Lang) (mirror.Source, error)) error {
	a := &app{cfg: cfg, log: log, db: db}
	if err := a.bootstrapAdmin(ctx, stderr); err != nil {
		return err
	}
	actor, err := firstAdministrator(ctx, db)
	if err != nil {
		return err
	}
	src, err := build(db, actor, storage.Lang(cfg.DefaultLanguage))
	if err != nil {
		return err
	}
	opts := mirror.Options{Logger: log.Named("mirror"), Now: cfg.clock()}
	if f.follow > 0 {
		return mirror.Follow(ctx, src, f.follow, opts)
	}
	opts.Progress = &mirror.Progress{}
	var rep *mirror.Report
	err = showProgress(stderr, opts.Progress.Snapshot, func() (err error) {
		rep, err = mirror.RunLogged(ctx, src, opts)
		return err
	})
	printReport(stdout, rep, f.dryRun)
	if err != nil {
		return err
	}
	// The index is derived data: rebuilt from the store in bulk at the next start, which is much
	// faster than replaying a long change log one entry at a time (as seed does).
	if !f.dryRun && rep.Added > 0 {
		if err := os.RemoveAll(filepath.Join(cfg.DataDir, "index")); err != nil {
			return fmt.Errorf("remove the index: %w", err)
		}
	}
	return f.failures(rep)
}

// printReport writes a run's summary, its notes and its failures, one a line.
func printReport(w io.Writer, rep *mirror.Report, dryRun bool) {
	if rep == nil {
		return
	}
	prefix := ""
	if dryRun {
		prefix = "dry run, nothing written: "
	}
	fmt.Fprintf(w, "%s%s: %s in %d requests, %s\n", prefix, rep.Source, rep, rep.Requests, rep.Took.Round(time.Millisecond))
	for _, n := range rep.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	for _, f := range rep.Failures {
		fmt.Fprintf(w, "failed: %s %s: %s\n", f.Kind, f.ID, f.Reason)
	}
}

// parseTimeout reads a request timeout: a positive Go duration.
func parseTimeout(s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("timeout %q: must be a positive duration such as 30s", s)
	}
	return d, nil
}

// mirroring reports whether serve mirrors a source: its records are then read-only through the API.
func (c Config) mirroring() bool { return c.MirrorFrom != "" || c.ICSFrom != "" }

// startMirror runs each configured mirror (CALENDAR_MIRROR_FROM, CALENDAR_ICS_FROM) on its schedule
// until the returned stop function is called; stop waits for the runs in progress to end.
func (a *app) startMirror(ctx context.Context) (stop func(), err error) {
	actor, err := firstAdministrator(ctx, a.db)
	if err != nil {
		return nil, err
	}
	lang := storage.Lang(a.cfg.DefaultLanguage)
	var sources []mirror.Source
	if a.cfg.MirrorFrom != "" {
		im, err := a.cfg.mirror.importer(a.db, actor, lang)
		if err != nil {
			return nil, err
		}
		sources = append(sources, im)
	}
	if a.cfg.ICSFrom != "" {
		im, err := icsImporter(a.db, actor, lang, a.cfg.ICSFrom, a.cfg.MirrorTimeout)
		if err != nil {
			return nil, err
		}
		sources = append(sources, im)
	}
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	for _, src := range sources {
		wg.Go(func() {
			opts := mirror.Options{Logger: a.log.Named("mirror"), Now: a.cfg.clock(), AfterRun: a.mirrorRan}
			if err := mirror.Follow(ctx, src, a.cfg.MirrorInterval, opts); err != nil {
				a.log.Error("mirror stopped", zap.String("source", src.Name()), zap.Error(err))
			}
		})
	}
	return func() { cancel(); wg.Wait() }, nil
}
