// Package index answers calendard's list routes. It is derived data: everything in it is rebuilt from
// the store, and kept current by applying the store's change log.
//
// # Basics
//
// Each language has two structures, always updated together by the syncer:
//
//   - a Bleve index under <dir>/<lang>.bleve with one document per event, venue and organizer: the
//     searched text, analysed with the language's stemmer, stop words and accent folding. It answers
//     the `search` parameter.
//   - an in-memory projection of the structured fields (start instant, status, flags, links, terms,
//     position), ordered by local start. It answers ordering, date bounds, filters, visibility and
//     counts, which an inverted index answers slowly (a sort through doc values costs about 0.7 µs
//     per matching document).
//
// # On-disk format
//
// Each Bleve index keeps two internal keys: "mapping" (mappingVersion) and "checkpoint" (the last
// change-log sequence number applied, 8 bytes big-endian), written in the same batch as the documents
// they describe, so content and checkpoint never disagree. A language no entry concerned stores its
// checkpoint only at the next Checkpoint call, and the change log is trimmed no further than what
// Checkpoint returned, so every language finds the entries after its checkpoint at the next start; one
// whose checkpoint the log was trimmed past anyway (storage.ErrCompacted) is rebuilt. So is one behind
// by more entries than two thirds of the store's records: replaying them would take longer than
// rebuilding (replayCostsMore).
//
// Beside each Bleve index, <dir>/<lang>.projection holds the language's projection as Checkpoint last
// saved it, with the change-log position it was saved at: the one Checkpoint stored in the Bleve
// index, so a start reads the projections instead of scanning the store, and replays the log from one
// point for both. The file carries its format (projectionFormat), the mapping version, its language
// and a CRC-32C; a file that is missing, corrupt, of another version or language, or saved at a
// position the log cannot replay from, is never trusted: the start scans the store, as it would
// without the file. A Bleve index rebuilt at start-up deletes its projection file. The file holds the
// projection's rows, refs, links and lists of keys as they lie in memory, and a start holds them where
// the file is mapped (copy-on-write: the file never changes); such a file is read only on a
// little-endian host, as every host calendard runs on is.
//
// # Caveats
//
// Bleve runs with unsafe_batch: a batch is visible at once and persisted in the background. A crash can
// lose the last batches, but with them their checkpoint, so the next start replays those entries.
// Deleting the index directory, or any file in it, is always safe: it is rebuilt at the next start.
// Truncating a projection file in place while the process runs is not: its mapping would read past the
// file's end (SIGBUS), as bbolt's would of the store's file. calendard replaces the file by a rename.
package index

import (
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/mapping"
	"go.uber.org/zap"

	"github.com/calendard/calendard/storage"
	"github.com/calendard/calendard/storage/pause"
)

var (
	keyMapping    = []byte("mapping")
	keyCheckpoint = []byte("checkpoint")
)

// Store is what the index reads from the record store.
type Store interface {
	Scan(ctx context.Context, t storage.PostType, after uint64, limit int) (*storage.Records, error)
	Load(ctx context.Context, t storage.PostType, ids []uint64) (*storage.Records, *storage.Related, error)
	Changes(ctx context.Context, after uint64, limit int) ([]storage.Change, error)
	ChangeHead(ctx context.Context) (uint64, error)
	Count(ctx context.Context, t storage.PostType) (int, error)
	NextScheduled(ctx context.Context, now time.Time) (time.Time, error)
}

// lang is one language's index and projection.
type lang struct {
	code    storage.Lang
	bleve   bleve.Index
	mapping *mapping.IndexMappingImpl
	// checkpoint is the last change applied to the Bleve index.
	checkpoint uint64

	mu   sync.RWMutex
	proj *projection
	// texts remembers search matches, the Index's one cache shared by every language; Bleve is
	// updated before the version moves, so a search started after reading a version sees at least
	// that version's text.
	texts *textCache
	// fixes remembers the corrections of typo-tolerant searches for their highlights (highlight.go).
	fixes corrections
}

// Options configures Open.
type Options struct {
	// Logger receives the index's log lines; nil discards them.
	Logger *zap.Logger
	// Loading, when set, follows Open's progress while it runs.
	Loading *Loading
	// TextCacheBytes bounds the memory the remembered search matches of all languages hold together;
	// zero means DefaultTextCacheBytes.
	TextCacheBytes int
}

// Index holds every language's index and projection.
type Index struct {
	store Store
	log   *zap.Logger
	// dir holds the Bleve indexes and the saved projections.
	dir   string
	langs map[storage.Lang]*lang
	// texts is the languages' one cache of search matches: one budget, spent where the searches are.
	texts *textCache

	// saving serializes the writers of the projection files, which share one temporary file each;
	// saved is the version the files hold, when they all hold the same.
	saving sync.Mutex
	saved  Version
	// mapped is how many bytes of saved projections the start read in place (loadSaved).
	mapped int64

	// writing serializes the two writers of the projections and Bleve, the syncer and the consistency
	// check's repairs, each from its read of the store to its last apply: otherwise a repair could
	// apply a record older than one the syncer read and applied meanwhile.
	writing sync.Mutex

	// applied is the change-log position every structure has caught up with; advanced closes and
	// replaces waitCh so WaitApplied callers wake.
	mu      sync.Mutex
	applied uint64
	waitCh  chan struct{}
	// repairs counts the consistency repairs since start-up: they change answers without moving the
	// applied position.
	repairs uint64
	stable  stability

	// rest waits d, or until ctx ends (pause.Sleep): the consistency check's pause between pages
	// (checkRest), which tests record instead.
	rest func(ctx context.Context, d time.Duration) error
}

const scanPage = 1000

// runtimeConfig is a new map for every call: Bleve writes into the map it is given.
func runtimeConfig() map[string]any { return map[string]any{"unsafe_batch": true} }

// Open opens the indexes under dir, rebuilding any that is missing, unreadable, of another mapping
// version, or ahead of the store (a restored backup), and reads the saved projections or builds them
// from the store. It returns once the index reflects the store, so the server can answer lists right
// away.
func Open(ctx context.Context, dir string, store Store, opts Options) (*Index, error) {
	log := opts.Logger
	if log == nil {
		log = zap.NewNop()
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("index: %w", err)
	}
	head, err := store.ChangeHead(ctx)
	if err != nil {
		return nil, err
	}
	ix := &Index{store: store, log: log, dir: dir, langs: map[storage.Lang]*lang{}, waitCh: make(chan struct{}),
		texts: &textCache{limit: cmp.Or(opts.TextCacheBytes, DefaultTextCacheBytes)}, rest: pause.Sleep}
	// The indexes open one after another: opening them side by side saved nothing measurable, and
	// Bleve's shared registry is not known to be safe for it.
	start := time.Now()
	check := &replayCheck{store: store, head: head}
	var rebuild []*lang
	for _, code := range storage.Langs {
		l, fresh, err := openLang(ctx, dir, code, check, log)
		if err != nil {
			ix.Close()
			return nil, err
		}
		l.texts = ix.texts
		ix.langs[code] = l
		if fresh {
			rebuild = append(rebuild, l)
		}
	}
	if err := ix.load(ctx, rebuild, check, opts.Loading); err != nil {
		ix.Close()
		return nil, err
	}
	log.Info("index loaded", zap.Int("rebuilt_languages", len(rebuild)), zap.Duration("duration", time.Since(start)))
	return ix, nil
}

// openLang opens one language's Bleve index under dir, or creates an empty one (fresh) when the
// existing one cannot be used: of another mapping, without a checkpoint, or one the change log cannot
// bring up to the store (unreplayable). A fresh index takes its saved projection with it: a projection
// is never trusted beyond the index it was checkpointed with.
func openLang(ctx context.Context, dir string, code storage.Lang, check *replayCheck, log *zap.Logger) (l *lang, fresh bool, err error) {
	m, err := newMapping(code)
	if err != nil {
		return nil, false, err
	}
	l = &lang{code: code, mapping: m, proj: newProjection()}
	path := bleveDir(dir, code)
	if idx, err := bleve.OpenUsing(path, runtimeConfig()); err == nil {
		version, _ := idx.GetInternal(keyMapping)
		cp, _ := idx.GetInternal(keyCheckpoint)
		switch {
		case string(version) != mappingVersion:
			log.Info("index mapping changed: rebuilding", zap.String("lang", string(code)))
		case len(cp) != 8:
			log.Info("index has no checkpoint: rebuilding", zap.String("lang", string(code)))
		default:
			checkpoint := binary.BigEndian.Uint64(cp)
			why, err := check.unreplayable(ctx, checkpoint)
			if err != nil {
				closeBleve(idx)
				return nil, false, err
			}
			if why == "" {
				l.bleve, l.checkpoint = idx, checkpoint
				return l, false, nil
			}
			log.Info("index is "+why+": rebuilding", zap.String("lang", string(code)))
		}
		closeBleve(idx)
	} else if !errors.Is(err, bleve.ErrorIndexPathDoesNotExist) {
		log.Warn("index unreadable: rebuilding", zap.String("lang", string(code)), zap.Error(err))
	}
	if err := os.RemoveAll(path); err != nil {
		return nil, false, fmt.Errorf("index: remove %s: %w", path, err)
	}
	if err := os.Remove(projectionPath(dir, code)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, false, fmt.Errorf("index: %w", err)
	}
	return l, true, nil // its builder creates the index (startBuilder)
}

// bleveDir is the directory of the Bleve index of code under dir.
func bleveDir(dir string, code storage.Lang) string { return filepath.Join(dir, string(code)+".bleve") }

// load fills the projections, then replays the change log from the oldest position a projection or a
// Bleve index holds; progress follows both phases. When no Bleve index is fresh and every language
// has a saved projection it can trust, the projections are read from their files (loadSaved);
// otherwise a full scan of the store builds them and feeds the fresh indexes (scan).
func (ix *Index) load(ctx context.Context, fresh []*lang, check *replayCheck, progress *Loading) error {
	from, saved := uint64(0), false
	if len(fresh) == 0 {
		from, saved = ix.loadSaved(ctx, check)
	}
	if !saved {
		var err error
		if from, err = ix.scan(ctx, fresh, progress); err != nil {
			return err
		}
	}
	ix.applied = from
	if progress != nil {
		head, err := ix.store.ChangeHead(ctx)
		if err != nil {
			return err
		}
		progress.begin(PhaseCatchingUp, head-from)
	}
	return ix.catchUp(ctx, progress)
}

// scan builds every projection from a full scan of the store and indexes the scanned records into the
// fresh Bleve indexes. It returns the position to replay the change log from: the oldest checkpoint.
func (ix *Index) scan(ctx context.Context, fresh []*lang, progress *Loading) (uint64, error) {
	// The head read before the scan is safe for the fresh indexes: entries after it are replayed, and
	// replaying is harmless because every entry re-reads the current record.
	head, err := ix.store.ChangeHead(ctx)
	if err != nil {
		return 0, err
	}
	if progress != nil {
		total, err := countRecords(ctx, ix.store)
		if err != nil {
			return 0, err
		}
		progress.begin(PhaseBuilding, total)
	}
	builders := map[storage.Lang]*builder{}
	if len(fresh) > 0 {
		// What an interrupted build left there is of no use.
		if err := os.RemoveAll(buildPath(ix.dir)); err != nil {
			return 0, fmt.Errorf("index: %w", err)
		}
	}
	for _, l := range fresh {
		builders[l.code] = startBuilder(ix.dir, l, progress)
	}
	defer func() {
		for _, b := range builders {
			b.stop()
		}
	}()
	// Venues come first: events read their positions from this map instead of loading them again.
	venues := map[uint64]*storage.Venue{}
	parents := newParentTexts()
	for _, t := range []storage.PostType{storage.TypeVenue, storage.TypeOrganizer, storage.TypeEvent} {
		pages, errc := ix.scanAll(ctx, t)
		var failed error
		for page := range pages {
			if failed != nil {
				continue // drained, so that the scanners end
			}
			for _, v := range page.Venues {
				venues[v.ID] = v
			}
			progress.add(len(page.Events) + len(page.Venues) + len(page.Organizers))
			if failed = parents.learn(ctx, ix.store, page.Events); failed != nil {
				continue
			}
			for _, d := range documents(page, venues, parents) {
				ix.langs[d.lang].load(d)
				if b := builders[d.lang]; b != nil && !d.event.sharesText {
					b.add(d)
				}
			}
		}
		if err := cmp.Or(failed, <-errc); err != nil {
			return 0, err
		}
	}
	if len(builders) > 0 {
		progress.begin(PhaseMerging, uint64(len(builders)))
	}
	// The builders merge side by side, and beside the sorting of the projections: one after the
	// other, they took the last 11 s of a 1M build.
	for _, b := range builders {
		b.close()
	}
	for _, l := range ix.langs {
		l.proj.sort()
	}
	for _, b := range builders {
		if err := b.wait(); err != nil {
			return 0, err
		}
	}
	if err := os.RemoveAll(buildPath(ix.dir)); err != nil {
		return 0, fmt.Errorf("index: %w", err)
	}
	for _, b := range builders {
		if err := ix.indexLater(ctx, b.l, b.later); err != nil {
			return 0, err
		}
	}
	from := head
	for _, l := range ix.langs {
		if builders[l.code] != nil {
			if err := l.bleve.SetInternal(keyCheckpoint, binary.BigEndian.AppendUint64(nil, head)); err != nil {
				return 0, err
			}
			l.checkpoint = head
		}
		from = min(from, l.checkpoint)
	}
	return from, nil
}

// countRecords is the number of records of store a full scan reads.
func countRecords(ctx context.Context, store Store) (uint64, error) {
	var total uint64
	for _, t := range []storage.PostType{storage.TypeVenue, storage.TypeOrganizer, storage.TypeEvent} {
		n, err := store.Count(ctx, t)
		if err != nil {
			return 0, err
		}
		total += uint64(n)
	}
	return total, nil
}

// scanAll reads every record of type t in pages. Decoding dominates the work, so two scanners decode
// halves of the ID range side by side while the caller consumes the pages; errc reports the first
// failure once pages is closed.
func (ix *Index) scanAll(ctx context.Context, t storage.PostType) (<-chan *storage.Records, <-chan error) {
	pages := make(chan *storage.Records, 4)
	errc := make(chan error, 1)
	first, err := ix.store.Scan(ctx, t, 0, 0)
	if err != nil {
		close(pages)
		errc <- err
		return pages, errc
	}
	mid := first.LastID / 2
	ranges := [][2]uint64{{0, mid}, {mid, first.LastID}}
	scanErrs := make([]error, len(ranges))
	var wg sync.WaitGroup
	for i, r := range ranges {
		wg.Go(func() {
			for after := r[0]; after < r[1]; {
				page, err := ix.store.Scan(ctx, t, after, scanPage)
				if err != nil {
					scanErrs[i] = err
					return
				}
				next := lastID(page, after) // before trimming: the cursor must always move on
				page.Events = slices.DeleteFunc(page.Events, func(e *storage.Event) bool { return e.ID > r[1] })
				page.Venues = slices.DeleteFunc(page.Venues, func(v *storage.Venue) bool { return v.ID > r[1] })
				page.Organizers = slices.DeleteFunc(page.Organizers, func(o *storage.Organizer) bool { return o.ID > r[1] })
				select {
				case pages <- page:
				case <-ctx.Done():
					return
				}
				if !page.More {
					return
				}
				after = next
			}
		})
	}
	go func() {
		wg.Wait()
		close(pages)
		errc <- errors.Join(scanErrs...)
	}()
	return pages, errc
}

// lastID is the highest ID of a page, or after for an empty one.
func lastID(page *storage.Records, after uint64) uint64 {
	for _, e := range page.Events {
		after = max(after, e.ID)
	}
	for _, v := range page.Venues {
		after = max(after, v.ID)
	}
	for _, o := range page.Organizers {
		after = max(after, o.ID)
	}
	return after
}

// venuesOf loads the venues of a page of events, for their positions.
func (ix *Index) venuesOf(ctx context.Context, events []*storage.Event) (map[uint64]*storage.Venue, error) {
	var ids []uint64
	for _, e := range events {
		if e.VenueID != 0 {
			ids = append(ids, e.VenueID)
		}
	}
	out := map[uint64]*storage.Venue{}
	if len(ids) == 0 {
		return out, nil
	}
	recs, _, err := ix.store.Load(ctx, storage.TypeVenue, ids)
	if err != nil {
		return nil, err
	}
	for _, v := range recs.Venues {
		out[v.ID] = v
	}
	return out, nil
}

// Close closes every Bleve index, within CloseWait; closing twice is harmless.
func (ix *Index) Close() error {
	var errs []error
	deadline := time.Now().Add(CloseWait)
	for _, l := range ix.langs {
		if l.bleve != nil {
			errs = append(errs, closeBleveBy(l.bleve, deadline))
			l.bleve = nil
		}
	}
	return errors.Join(errs...)
}

// CloseWait bounds how long Close waits for Bleve's background work, every language together: a
// shutdown must not hang on it, and on a full disk Bleve never catches up.
const CloseWait = 8 * time.Second

// closeBleve closes idx once Bleve's persister and merger have caught up with its newest snapshot.
// Bleve v2.5.7 races with itself when an index closes while the persister swaps freshly written
// segments in: persistSnapshotDirect's cleanup walks the map introducePersist is still editing, which
// the race detector reports and which may close a segment twice. Bleve signals nothing when it goes
// idle, so its epochs are polled.
func closeBleve(idx bleve.Index) error { return closeBleveBy(idx, time.Now().Add(CloseWait)) }

// closeBleveBy is closeBleve waiting no longer than deadline.
func closeBleveBy(idx bleve.Index, deadline time.Time) error {
	if s, err := idx.Advanced(); err == nil {
		if sc, ok := s.(*scorch.Scorch); ok {
			if st, ok := sc.Stats().(*scorch.Stats); ok {
				for !bleveIdle(st) && time.Now().Before(deadline) {
					time.Sleep(time.Millisecond)
				}
			}
		}
	}
	return idx.Close()
}

// bleveIdle reports whether the persister and the merger have both handled the current root
// snapshot, as Bleve's own index_bgthreads_active stat does, but with ≥: Bleve records the root's
// epoch only when it introduces a new root, so a reopened index reads 0 until its first write.
func bleveIdle(st *scorch.Stats) bool {
	root := atomic.LoadUint64(&st.CurRootEpoch)
	return atomic.LoadUint64(&st.LastPersistedEpoch) >= root && atomic.LoadUint64(&st.LastMergedEpoch) >= root
}

// Applied is the change-log position the index has caught up with.
func (ix *Index) Applied() uint64 {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	return ix.applied
}

// Version identifies the contents the index answers from. Both counters only grow, so of two versions
// read from one index, the earlier is Less.
type Version struct {
	Applied, Repairs uint64
}

// Less reports whether v was read before w.
func (v Version) Less(w Version) bool {
	return v.Applied < w.Applied || (v.Applied == w.Applied && v.Repairs < w.Repairs)
}

// MappedBytes returns how many bytes of the projections' saved files the index holds where the files
// are mapped, which the start read in place: part of what the calendar holds, outside the Go heap.
func (ix *Index) MappedBytes() int64 { return ix.mapped }

// Version returns the index's current version: a cached answer computed at another one may differ.
func (ix *Index) Version() Version {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	return Version{ix.applied, ix.repairs}
}

// repaired notes a repair, once its changes are in place.
func (ix *Index) repaired() {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.repairs++
}

func (ix *Index) advance(seq uint64) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if seq > ix.applied {
		ix.applied = seq
		close(ix.waitCh)
		ix.waitCh = make(chan struct{})
	}
}

// WaitApplied blocks until the index has applied change-log entry seq, or ctx is done. A write calls
// it before answering, so the writer's next list request sees the write (read-your-writes).
func (ix *Index) WaitApplied(ctx context.Context, seq uint64) error {
	for {
		ix.mu.Lock()
		applied, ch := ix.applied, ix.waitCh
		ix.mu.Unlock()
		if applied >= seq {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
