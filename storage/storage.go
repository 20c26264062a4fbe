// Package storage keeps every record of calendard in one bbolt file and enforces every rule that spans
// records inside one transaction.
//
// # Basics
//
// The store is the source of truth; the search indexes are derived from it through the change log.
// Each exported method of DB runs exactly one transaction, so each write is atomic and durable when it
// returns: an acknowledged write is never lost, and a failed one leaves nothing behind.
//
// Every transaction goes through the key-value seam of package kv (docs/CLUSTER.md): the rules are
// here, and a backend only keeps bytes. The default backend, boltkv, keeps each bucket below as the
// bbolt bucket of that name, so the format below is the bbolt file's, byte for byte (TestLayout).
// What only a file has is asked of the backend: boltkv copies the file's pages for Backup
// (kv.Backuper) and names the file for FileSize (kv.File), and Inspect opens a file of this format
// through it. OpenStore opens the store on another backend, etcdkv in cluster mode, where the buckets
// are etcd keys (etcdkv's layout): a backup there copies the keys into a new file.
//
// # On-disk format
//
// Keys holding IDs are 8-byte big-endian integers, so cursor order is ID order. Values are JSON.
//
//	meta                      "schema" → version; "hashkey" → 32 random bytes keying password hashes;
//	                          "spaceprobe" → 256 KiB of zeros, between CheckSpace's two writes only
//	sequences/posts           NextSequence: IDs of events, venues, organizers and images (one sequence)
//	sequences/terms           NextSequence: IDs of categories and tags
//	                          (both start at Options.LocalIDBase when it is set, and move past an ID
//	                          an import writes: see newPost)
//	sequences/groups          NextSequence: translation group IDs
//	events venues organizers  id → record
//	images                    id → Image;   image_urls: URL → id
//	categories tags           id → Term
//	slugs/<type>/<lang>       slug → id of the non-trashed record holding it
//	trashslugs/<type>/<lang>  slug 0x00 id → trash time (Unix ns), for by-slug lookups of trashed records
//	names/<type>/<lang>       lower-cased trimmed name 0x00 id → empty: duplicate avoidance (venues,
//	                          organizers) without a scan
//	termslugs/<taxonomy>      slug → term id
//	links/venue, links/organizer, links/term
//	                          linked id ‖ event id → empty: reverse links from a venue, organizer or
//	                          term to the events that use it
//	links/series              parent id ‖ occurrence id → empty: the occurrences of a series
//	series                    parent id → empty: every event holding a rule, for the horizon job
//	scheduled                 publication date ‖ id → an event's term ids, or empty: every event,
//	                          venue and organizer stored as future. PublishDue seeks the due ones, and
//	                          terms count a due event from it before it is rewritten (scheduled.go)
//	groups                    group id ‖ lang → id of the group's non-trashed record in that language
//	external_ids              source 0x00 the source's identity → doc kind ‖ id ‖ stamp: what an
//	                          import wrote each of a source's records as (Bulk.Link)
//	external_docs             doc kind ‖ id → source 0x00 the source's identity: the reverse of
//	                          external_ids, which GuardMirrored checks on every write, and Bulk.Link
//	                          before an import links a record it did not create (ErrNotImported)
//	origins                   a place an import reads (a file's path, a feed's URL, a TEC site's
//	                          root) → Origin: the source its records are linked under, the feed's
//	                          HTTP validators, the highest post ID a TEC import has probed
//	outbox                    seq → Change: the change log that feeds the search indexes
//	outbox_marks              Unix seconds → the change-log head then: how far TrimChanges may trim
//	                          under Options.ChangesHorizon
//	users                     id → User;  user_logins, user_emails: lower-cased login / e-mail → id
//	app_passwords             keyed SHA-256 of the password → AppPassword
//	webhooks                  id → Webhook: a subscription, its secrets and its cursor in the change log
//
// # Caveats
//
// Records are decoded inside the transaction because the byte slices it hands out (bbolt's memory
// map) are invalid once it ends. No method calls the index or the network inside a transaction. A
// scheduled record is reported as published by every read from its date on (Post.promote), up to a
// minute before PublishDue rewrites it: both follow one rule (due, in scheduled.go).
//
// A write reads by key wherever it can: an optimistic backend (etcd's STM) checks what a write read
// by key for conflicts by itself, but a range only when it is guarded (kv.RwTx.GuardedCursor). A
// translation group's members are read by key, one per language (touchGroup), and so are the due
// entries PublishDue rewrites, found in a read transaction first. These range reads inside writes
// remain, each through a guarded cursor:
//
//   - linkedIDs (links/venue, links/organizer, links/term, links/series): the events of a venue or
//     organizer being trashed or moved (unlinkEvents, applyVenue), of a term being renamed or
//     deleted (touchTermEvents, DeleteTerm), and the occurrences of a series being written
//     (syncSeries, Bulk.Occurrence);
//   - sameName (names/<type>/<lang>): the venues or organizers a create would duplicate (duplicate);
//   - allTerms (categories, tags): a name taken under the same parent (createTerm), a category's
//     children (touchTermEvents, DeleteTerm), a term given by name (resolveTerm);
//   - addAppPassword and RevokeAppPassword (app_passwords): a user's application password by name;
//   - TrimChanges and markChanges (outbox, outbox_marks): the entries up to a position, the marks
//     a horizon old; in cluster mode trimming becomes etcd's compaction (docs/CLUSTER.md);
//   - migrateScheduled: every record, term link and term, once, when a file of an older schema opens.
//
// The first four could become key reads with index buckets of their own (the links gathered per
// record, a term's name and parent, a user's password names). That is a schema change, left to the
// version that needs it: files of this schema must open unchanged.
package storage

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/calendard/calendard/storage/datetime"
	"github.com/calendard/calendard/storage/kv"
	"github.com/calendard/calendard/storage/kv/boltkv"
)

// schemaVersion 2 added the scheduled bucket, and 3 put venues and organizers into it
// (migrateScheduled).
const schemaVersion = 3

// MirrorIDBase is the Options.LocalIDBase of a store that mirrors a WordPress site: 2^40, about 1.1
// trillion. WordPress hands out the IDs of every post (events, venues, organizers, but also revisions
// and attachments) from one MySQL auto-increment, and those of terms from another; no site comes near
// it. It is far below 2^53, so the IDs stay exact as JSON numbers in every client (JavaScript's).
const MirrorIDBase uint64 = 1 << 40

// Options configure a DB. The zero value of every field but SiteZone has a usable default.
type Options struct {
	// Now is the clock; tests freeze it. Defaults to time.Now.
	Now func() time.Time
	// Logger receives the store's few log lines. Defaults to a no-op logger.
	Logger *zap.Logger
	// SiteZone is the zone of `date`/`modified` and the default event zone.
	SiteZone datetime.Zone
	// LockTimeout bounds the wait for another process's file lock. Defaults to one second: with bbolt's
	// zero a second process would wait forever.
	LockTimeout time.Duration
	// ChangesHorizon is how long change-log entries are kept at least, for the change feed's cursors
	// (TrimChanges); zero keeps none beyond what the caller of TrimChanges allows.
	ChangesHorizon time.Duration
	// SeriesPast and SeriesHorizon bound the occurrences a series materialises (SeriesWindow), in
	// months; zero means DefaultSeriesMonths.
	SeriesPast, SeriesHorizon int
	// SeriesMaxText bounds the bytes of text a series' occurrences copy from its parent: their number
	// in the window times the parent's title, excerpt and description (a write past it is a
	// *FieldError on recurrence); zero means DefaultSeriesMaxText.
	SeriesMaxText int
	// GuardMirrored refuses writes outside Bulk to records an import linked (ErrMirrored): set while a
	// mirror keeps them in line with their source.
	GuardMirrored bool
	// LocalIDBase, when set, is the lowest ID the store hands out itself, for records and terms alike:
	// an ID the store chooses is at least LocalIDBase (and above every ID already handed out), while
	// a record an import writes keeps its source's ID. Set it (to MirrorIDBase) while a site whose IDs
	// the store keeps is mirrored, so that a record created here never takes an ID the site will use
	// for a record of its own. Existing records keep their IDs.
	LocalIDBase uint64
	// RecordCacheBytes bounds the memory the decoded-record caches hold (events, venues and organizers
	// get 15/16, terms the rest); zero means DefaultRecordCacheBytes.
	RecordCacheBytes int
	// Wrap, when set, is put in front of the key-value store: tests inject failures (a full disk)
	// through it.
	Wrap func(kv.Store) kv.Store
}

// DB is the record store.
type DB struct {
	// kv holds the records: every transaction goes through it.
	kv kv.Store
	// base is kv as it was opened, without Options.Wrap: what only some backends have is asked of it
	// (Backup of a kv.Backuper, FileSize of a kv.File).
	base     kv.Store
	now      func() time.Time
	log      *zap.Logger
	siteZone datetime.Zone
	horizon  time.Duration
	// series is the window of SeriesWindow, in months before and after; seriesMaxText is
	// Options.SeriesMaxText.
	seriesPast, seriesHorizon int
	seriesMaxText             int
	// guardMirrored is Options.GuardMirrored, localIDBase Options.LocalIDBase.
	guardMirrored bool
	localIDBase   uint64
	hashKey       []byte
	followers     followers
	// cache holds decoded events, venues and organizers; terms, whose IDs are another sequence,
	// have their own.
	cache, terms *recordCache
	// full is set while writes fail for want of disk space (full.go).
	full atomic.Bool
	// compactAt is the cluster revision the next CompactHistory compacts up to (cluster.go).
	compactAt atomic.Int64
	// head is the change-log head when this process is the store's only writer (ownHead: a bbolt
	// file, which it locks), kept by update as its commits return: ChangeHead, asked on every list
	// request, then reads no transaction. A store other processes write (kv.Watcher) is read each time.
	head    atomic.Uint64
	ownHead bool
}

// ErrLocked is returned by Open when another process holds the data file.
var ErrLocked = errors.New("storage: the data file is locked by another process")

// Open opens (creating if needed) the store at path: a bbolt file (package boltkv).
func Open(path string, opts Options) (*DB, error) {
	if opts.LockTimeout == 0 {
		opts.LockTimeout = time.Second
	}
	store, err := boltkv.Open(path, boltkv.Options{Timeout: opts.LockTimeout})
	if errors.Is(err, kv.ErrLocked) {
		return nil, fmt.Errorf("%w: %s", ErrLocked, path)
	}
	if err != nil {
		return nil, fmt.Errorf("storage: open %s: %w", path, err)
	}
	return OpenStore(store, opts)
}

// OpenStore opens the store on a key-value backend the caller opened, which the DB then owns (Close
// closes it): etcdkv in cluster mode (docs/CLUSTER.md), or a cluster node's copy of it. The records, their
// rules and the change log are the same on every backend; what only some have is missing elsewhere:
// Backup needs a kv.Backuper (a bbolt file) and FileSize a kv.File, and both return ErrNotFile
// without.
func OpenStore(store kv.Store, opts Options) (*DB, error) {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = zap.NewNop()
	}
	if opts.SiteZone.Loc == nil {
		opts.SiteZone = datetime.Zone{Name: "UTC", Loc: time.UTC}
	}
	base := store
	if opts.Wrap != nil {
		store = opts.Wrap(store)
	}
	db := &DB{kv: store, base: base, now: opts.Now, log: opts.Logger, siteZone: opts.SiteZone,
		horizon: opts.ChangesHorizon, guardMirrored: opts.GuardMirrored, localIDBase: opts.LocalIDBase, seriesPast: cmp.Or(opts.SeriesPast, DefaultSeriesMonths),
		seriesHorizon: cmp.Or(opts.SeriesHorizon, DefaultSeriesMonths), seriesMaxText: cmp.Or(opts.SeriesMaxText, DefaultSeriesMaxText)}
	// Terms are few (hundreds: 100 KB at 100k events, as /metrics shows) but read by every list page.
	recordBytes := cmp.Or(opts.RecordCacheBytes, DefaultRecordCacheBytes)
	db.cache, db.terms = newRecordCache(recordBytes-recordBytes/16), newRecordCache(recordBytes/16)
	if err := db.init(); err != nil {
		db.kv.Close()
		return nil, err
	}
	_, watched := store.(kv.Watcher)
	_, baseWatched := base.(kv.Watcher)
	if db.ownHead = !watched && !baseWatched; db.ownHead {
		if err := db.kv.View(context.Background(), func(tx kv.Tx) error {
			db.head.Store(tx.Sequence(bOutbox))
			return nil
		}); err != nil {
			db.kv.Close()
			return nil, fmt.Errorf("storage: read the change-log head: %w", err)
		}
	}
	return db, nil
}

func (db *DB) init() error {
	return db.kv.Update(context.Background(), func(tx kv.RwTx) error {
		for _, name := range topBuckets {
			if err := tx.CreateBucketIfNotExists([]byte(name)); err != nil {
				return fmt.Errorf("storage: create bucket %s: %w", name, err)
			}
		}
		if tx.Get(bMeta, kCopying) != nil {
			return ErrIncomplete
		}
		schema := uint64(0)
		if v := tx.Get(bMeta, kSchema); v != nil {
			schema = binary.BigEndian.Uint64(v)
		}
		if schema > schemaVersion {
			return fmt.Errorf("storage: data written by a newer calendard (schema %d)", schema)
		}
		if schema < 3 {
			// One read of every record, once: 0.1 s per 100 000 events from the page cache.
			start := time.Now()
			if err := migrateScheduled(tx); err != nil {
				return fmt.Errorf("storage: migrate to schema 3: %w", err)
			}
			if schema > 0 {
				db.log.Info("store migrated to schema 3", zap.Duration("duration", time.Since(start)))
			}
		}
		if err := tx.Put(bMeta, kSchema, u64(schemaVersion)); err != nil {
			return err
		}
		key := tx.Get(bMeta, kHashKey)
		if key == nil {
			key = make([]byte, 32)
			if _, err := rand.Read(key); err != nil {
				return err
			}
			if err := tx.Put(bMeta, kHashKey, key); err != nil {
				return err
			}
		}
		db.hashKey = append([]byte(nil), key...)
		return nil
	})
}

// GrowRecordCache raises the bound of the decoded-record caches to n bytes together, shared as
// Options.RecordCacheBytes is; a smaller n leaves them.
func (db *DB) GrowRecordCache(n int) {
	db.cache.grow(n - n/16)
	db.terms.grow(n / 16)
}

// Close closes the store.
func (db *DB) Close() error { return db.kv.Close() }

// Now is the store's clock.
func (db *DB) Now() time.Time { return db.now() }

// SiteZone is the zone of publication dates and the default event zone.
func (db *DB) SiteZone() datetime.Zone { return db.siteZone }

// update runs fn in a read-write transaction and signals the subscribers once it has committed. A write the disk
// had no room for returns ErrNoSpace (full.go).
func (db *DB) update(ctx context.Context, fn func(kv.RwTx) error) error {
	var head uint64
	err := db.kv.Update(ctx, func(tx kv.RwTx) error {
		if err := fn(tx); err != nil {
			return err
		}
		head = tx.Sequence(bOutbox)
		return nil
	})
	if err := db.noteSpace(ctx, err); err != nil {
		return err
	}
	// Raised, never lowered: two writers' commits may return in either order.
	for old := db.head.Load(); head > old && !db.head.CompareAndSwap(old, head); old = db.head.Load() {
	}
	db.followers.signal()
	return nil
}

// Follow signals the subscribers after every commit by another process that appended to the change log, until
// ctx is done: the other nodes of a cluster (docs/CLUSTER.md), whose writes this process's syncer must apply
// too. It returns ctx's error then, or the backend's if it can no longer watch. On a bbolt file, which
// no other process writes, it only waits for ctx.
func (db *DB) Follow(ctx context.Context) error {
	w, ok := db.kv.(kv.Watcher)
	if !ok {
		<-ctx.Done()
		return ctx.Err()
	}
	if err := w.Watch(ctx, bOutbox, db.followers.signal); err != nil {
		return fmt.Errorf("storage: follow: %w", err)
	}
	return nil
}

// Elect runs the election called name among the processes that share the store (cluster mode: see
// kv.Elector) until ctx is done: lead(true) while this process leads. On a store no other process
// opens (a bbolt file) the process leads at once, until ctx ends.
func (db *DB) Elect(ctx context.Context, name string, lead func(bool)) error {
	if e, ok := db.kv.(kv.Elector); ok {
		return e.Elect(ctx, name, lead)
	}
	lead(true)
	<-ctx.Done()
	lead(false)
	return ctx.Err()
}
