package handlers

import (
	"context"
	"time"

	"go.uber.org/zap"

	"github.com/calendard/calendard/index"
	"github.com/calendard/calendard/storage"
	"github.com/calendard/calendard/storage/datetime"
)

// Deps are what a Handler is built from: the settings and the parts it reads and writes through.
type Deps struct {
	Config Config
	Store  Store
	Index  Index
	// Log, when set, receives the handler's lines; unset, there are none (OpenAPI's handler serves no
	// request).
	Log *zap.Logger
	// Stopping, when set, is done once the server begins to shut down: long polls answer then rather
	// than hold the shutdown.
	Stopping context.Context
	// Metrics, when set, counts the requests and reports this handler's figures (metrics.go); Jobs,
	// when set, gives the jobs' figures it reports.
	Metrics *Metrics
	Jobs    func() []JobStat
	// Webhooks, when set, gives the webhook deliveries' figures the metrics report.
	Webhooks func(context.Context) (WebhookStats, error)
}

// Store is what the handlers need of the record store; *storage.DB is one. The handlers depend on
// this rather than on the store itself, so that a test can put a fake in front of any method. Another
// backend (etcd, docs/CLUSTER.md) goes under storage, behind its kv seam, and leaves this surface as it is.
// Errors are storage's kinds, as storage/errors.go documents them; the error table (errors.go)
// answers them.
type Store interface {
	// Now is the service's one clock; SiteZone the site's time zone (README "Configuration").
	Now() time.Time
	SiteZone() datetime.Zone

	AuthenticateBasic(ctx context.Context, name, password string) (*storage.User, error)
	AuthenticateBearer(ctx context.Context, password string) (*storage.User, error)

	Event(ctx context.Context, id uint64) (*storage.Event, *storage.Related, error)
	EventBySlug(ctx context.Context, lang storage.Lang, slug string) (*storage.Event, *storage.Related, error)
	CreateEvent(ctx context.Context, a storage.Actor, lang storage.Lang, in *storage.EventInput) (*storage.Event, error)
	UpdateEvent(ctx context.Context, a storage.Actor, id uint64, in *storage.EventInput) (*storage.Event, error)
	TrashEvent(ctx context.Context, a storage.Actor, id uint64) (*storage.Event, error)
	TrashOccurrence(ctx context.Context, a storage.Actor, parent uint64, day string) (*storage.Event, error)

	Venue(ctx context.Context, id uint64) (*storage.Venue, *storage.Related, error)
	VenueBySlug(ctx context.Context, lang storage.Lang, slug string) (*storage.Venue, *storage.Related, error)
	CreateVenue(ctx context.Context, a storage.Actor, lang storage.Lang, in *storage.VenueInput) (*storage.Venue, bool, error)
	UpdateVenue(ctx context.Context, a storage.Actor, id uint64, in *storage.VenueInput) (*storage.Venue, error)
	TrashVenue(ctx context.Context, a storage.Actor, id uint64) (*storage.Venue, error)

	Organizer(ctx context.Context, id uint64) (*storage.Organizer, *storage.Related, error)
	OrganizerBySlug(ctx context.Context, lang storage.Lang, slug string) (*storage.Organizer, *storage.Related, error)
	CreateOrganizer(ctx context.Context, a storage.Actor, lang storage.Lang, in *storage.OrganizerInput) (*storage.Organizer, bool, error)
	UpdateOrganizer(ctx context.Context, a storage.Actor, id uint64, in *storage.OrganizerInput) (*storage.Organizer, error)
	TrashOrganizer(ctx context.Context, a storage.Actor, id uint64) (*storage.Organizer, error)

	Term(ctx context.Context, tax storage.Taxonomy, id uint64) (*storage.Term, *storage.Related, error)
	Terms(ctx context.Context, tax storage.Taxonomy) ([]*storage.Term, error)
	ResolveTerms(ctx context.Context, tax storage.Taxonomy, items []string) (ids []uint64, missing string, err error)
	CreateTerm(ctx context.Context, a storage.Actor, tax storage.Taxonomy, in *storage.TermInput) (*storage.Term, error)
	UpdateTerm(ctx context.Context, a storage.Actor, tax storage.Taxonomy, id uint64, in *storage.TermInput) (*storage.Term, error)
	DeleteTerm(ctx context.Context, tax storage.Taxonomy, id uint64) (*storage.Term, error)

	// Load reads a page of list items with what they embed; ChangeHead and ChangedSince tell which
	// cached answers are still current (respcache.Cache.Current, cache.go).
	Load(ctx context.Context, t storage.PostType, ids []uint64) (*storage.Records, *storage.Related, error)
	ChangeHead(ctx context.Context) (uint64, error)
	ChangedSince(ctx context.Context, after uint64, limit int) (map[storage.Doc]uint64, bool, error)
	// PrimaryChangeHead is the head of the change log of the store every node shares (cluster
	// mode), for readiness: a node has caught up once its index has applied it (health.go).
	PrimaryChangeHead(ctx context.Context) (uint64, error)
	// Full reports a disk that had no room for the last write; CheckSpace tries a write to find out
	// whether it has now (readiness, health.go).
	Full() bool
	CheckSpace(ctx context.Context) error
	// Changes reads the change log for the change feed (changes.go).
	Changes(ctx context.Context, after uint64, limit int) ([]storage.Change, error)
	// FileSize is the store's size on disk, for /metrics.
	FileSize() (int64, error)
	// RecordCacheStats describes the store's caches of decoded records, for /metrics.
	RecordCacheStats() (posts, terms storage.CacheStats)
}

// Index is what the handlers need of the search index; *index.Index is one.
type Index interface {
	Events(ctx context.Context, f *index.EventFilter) (index.Page, error)
	Places(ctx context.Context, f *index.PlaceFilter) (index.Page, error)
	// Highlighter finds the words of records' texts that a list's search matched (highlight.go).
	Highlighter(ctx context.Context, lang storage.Lang, search string, typos bool) (*index.Highlighter, error)
	// Applied and WaitApplied give readiness and read-your-writes; Version, StableUntil and
	// NextPublication tell the caches when an answer changes.
	Applied() uint64
	WaitApplied(ctx context.Context, seq uint64) error
	Version() index.Version
	StableUntil(ctx context.Context, now time.Time) time.Time
	NextPublication(ctx context.Context, now time.Time) time.Time
	// TextCacheStats describes the index's cache of search matches, for /metrics.
	TextCacheStats() index.CacheStats
}
