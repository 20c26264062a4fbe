package storage

import (
	"errors"
	"path/filepath"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest"
	"go.uber.org/zap/zaptest/observer"

	"github.com/calendard/calendard/storage/kv"
	"github.com/calendard/calendard/storage/kv/boltkv"
)

// openClockDB opens a store whose clock reads *now, on the test's backend (openTestDB), checking
// consistency at cleanup like mustOpenDB: bbolt's pages, and that the scheduled bucket mirrors the
// records.
func openClockDB(t testing.TB, now *time.Time) *DB {
	t.Helper()
	db, err := openTestDB(t, Options{Now: func() time.Time { return *now }, Logger: zaptest.NewLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if file, ok := db.base.(*boltkv.Store); ok {
			if err := file.Check(); err != nil {
				t.Errorf("consistency: %v", err)
			}
		}
		checkScheduled(t, db)
		db.Close()
	})
	return db
}

// storedStatus reads a record's status as stored, without the lazy promotion of reads.
func storedStatus(t *testing.T, db *DB, bucket []byte, id uint64) *Post {
	t.Helper()
	var p *Post
	err := db.kv.View(ctx, func(tx kv.Tx) error {
		e, err := get[Event](tx, bucket, id) // Event embeds Post: reads any record's common fields
		if err == nil {
			p = &e.Post
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestPublishDue(t *testing.T) {
	now := testNow
	db := openClockDB(t, &now)
	jazz, err := db.CreateTerm(ctx, admin, TaxCategory, &TermInput{Name: ptr("Jazz")})
	if err != nil {
		t.Fatal(err)
	}
	tag, err := db.CreateTerm(ctx, admin, TaxTag, &TermInput{Name: ptr("Outdoor")})
	if err != nil {
		t.Fatal(err)
	}
	when := testNow.Add(90 * time.Minute)
	venue, _, err := db.CreateVenue(ctx, admin, "en", &VenueInput{PostInput: PostInput{Title: ptr("Hall"), Status: ptr(StatusFuture), Date: &when}})
	if err != nil {
		t.Fatal(err)
	}
	in := newEvent(t, "Concert")
	in.Status, in.Date = ptr(StatusFuture), &when
	in.Categories, in.Tags = &[]string{utoa(jazz.ID)}, &[]string{utoa(tag.ID)}
	ev := mustCreateEvent(t, db, admin, in)
	published := mustCreateEvent(t, db, admin, newEvent(t, "Already out"))
	if ev.Status != StatusFuture || storedStatus(t, db, bVenues, venue.ID).Status != StatusFuture {
		t.Fatalf("setup: event %s, venue %s, want future", ev.Status, venue.Status)
	}
	count := func(tax Taxonomy, id uint64) int {
		t.Helper()
		term, _, err := db.Term(ctx, tax, id)
		if err != nil {
			t.Fatal(err)
		}
		return term.Count
	}

	head, _ := db.ChangeHead(ctx)
	n, err := db.PublishDue(ctx)
	if err != nil || n != 0 {
		t.Fatalf("before the date: PublishDue = %d, %v; want 0, nil", n, err)
	}
	if got := changesSince(t, db, head); len(got) != 0 {
		t.Errorf("before the date: change log got %v, want nothing", got)
	}
	if got := count(TaxCategory, jazz.ID); got != 0 {
		t.Errorf("before the date: category count = %d, want 0", got)
	}

	now = when // the date passes
	if n, err = db.PublishDue(ctx); err != nil || n != 2 {
		t.Fatalf("after the date: PublishDue = %d, %v; want 2, nil", n, err)
	}
	gotEvent := storedStatus(t, db, bEvents, ev.ID)
	if gotEvent.Status != StatusPublish || !gotEvent.Modified.Equal(ev.Modified) {
		t.Errorf("event stored as %s modified %v, want publish modified %v (docs/API.md, Statuses)", gotEvent.Status, gotEvent.Modified, ev.Modified)
	}
	if gotVenue := storedStatus(t, db, bVenues, venue.ID); gotVenue.Status != StatusPublish || !gotVenue.Modified.Equal(venue.Modified) {
		t.Errorf("venue stored as %s modified %v, want publish modified %v", gotVenue.Status, gotVenue.Modified, venue.Modified)
	}
	if got := storedStatus(t, db, bEvents, published.ID); !got.Modified.Equal(published.Modified) {
		t.Errorf("an already published event was rewritten")
	}
	if got := count(TaxCategory, jazz.ID); got != 1 {
		t.Errorf("category count = %d, want 1 (docs/API.md, The term object)", got)
	}
	if got := count(TaxTag, tag.ID); got != 1 {
		t.Errorf("tag count = %d, want 1", got)
	}
	want := map[Change]bool{{Kind: DocEvent, ID: ev.ID}: true, {Kind: DocVenue, ID: venue.ID}: true,
		{Kind: DocCategory, ID: jazz.ID}: true, {Kind: DocTag, ID: tag.ID}: true}
	got := map[Change]bool{}
	for _, c := range changesSince(t, db, head) {
		got[c] = true
	}
	for c := range want {
		if !got[c] {
			t.Errorf("change log lacks %+v (got %v)", c, got)
		}
	}

	head, _ = db.ChangeHead(ctx)
	if n, err = db.PublishDue(ctx); err != nil || n != 0 {
		t.Errorf("second run: PublishDue = %d, %v; want 0, nil", n, err)
	}
	if got := changesSince(t, db, head); len(got) != 0 {
		t.Errorf("second run logged %v", got)
	}
	if got := count(TaxCategory, jazz.ID); got != 1 {
		t.Errorf("second run: category count = %d, want 1", got)
	}
}

func TestTrimChanges(t *testing.T) {
	db := mustOpenDB(t)
	for _, title := range []string{"a", "b", "c"} {
		mustCreateEvent(t, db, admin, newEvent(t, title))
	}
	head, _ := db.ChangeHead(ctx)
	all, err := db.Changes(ctx, 0, 1000)
	if err != nil || len(all) == 0 {
		t.Fatalf("setup: %d changes, %v", len(all), err)
	}
	upTo := all[len(all)-2].Seq
	n, err := db.TrimChanges(ctx, upTo)
	if err != nil || n != len(all)-1 {
		t.Fatalf("TrimChanges(%d) = %d, %v; want %d, nil", upTo, n, err, len(all)-1)
	}
	left, err := db.Changes(ctx, upTo, 1000)
	if err != nil || len(left) != 1 || left[0].Seq != head {
		t.Errorf("after trim: %v, %v; want only seq %d", left, err, head)
	}
	for _, after := range []uint64{0, upTo - 1} {
		if got, err := db.Changes(ctx, after, 1000); !errors.Is(err, ErrCompacted) {
			t.Errorf("Changes(%d) after trimming to %d = %v, %v; want ErrCompacted", after, upTo, got, err)
		}
	}
	if got, _ := db.ChangeHead(ctx); got != head {
		t.Errorf("ChangeHead after trim = %d, want %d", got, head)
	}
	mustCreateEvent(t, db, admin, newEvent(t, "d"))
	left, _ = db.Changes(ctx, head, 1000)
	if len(left) == 0 || left[0].Seq <= head {
		t.Errorf("a write after the trim got %v, want seqs above %d", left, head)
	}
	if n, err := db.TrimChanges(ctx, upTo); err != nil || n != 0 {
		t.Errorf("trimming again = %d, %v; want 0, nil", n, err)
	}
	// A log trimmed to its head is empty: reading from the head finds nothing new, and reading from
	// below it is still an explicit ErrCompacted, not an empty answer.
	head, _ = db.ChangeHead(ctx)
	if _, err := db.TrimChanges(ctx, head); err != nil {
		t.Fatal(err)
	}
	if got, err := db.Changes(ctx, head, 1000); err != nil || len(got) != 0 {
		t.Errorf("Changes(head) on an empty log = %v, %v; want nothing", got, err)
	}
	if got, err := db.Changes(ctx, head-1, 1000); !errors.Is(err, ErrCompacted) {
		t.Errorf("Changes(head-1) on an empty log = %v, %v; want ErrCompacted", got, err)
	}
}

// TestDueScheduledEventsAreCounted: a scheduled event reads as published from its date on, so its terms
// count it from then, before PublishDue rewrites it, through every read of a term (docs/API.md "The term object", "Statuses");
// writes to it in between count it once, and an update that changes nothing does not count it.
func TestDueScheduledEventsAreCounted(t *testing.T) {
	now := testNow
	db := openClockDB(t, &now)
	tag, err := db.CreateTerm(ctx, admin, TaxTag, &TermInput{Name: ptr("Outdoor")})
	if err != nil {
		t.Fatal(err)
	}
	withTag := func(title string, status Status, date *time.Time) *Event {
		in := newEvent(t, title)
		in.Status, in.Date, in.Tags = &status, date, &[]string{utoa(tag.ID)}
		return mustCreateEvent(t, db, admin, in)
	}
	published := withTag("Out already", StatusPublish, nil)
	when := testNow.Add(time.Hour)
	later := withTag("Later", StatusFuture, &when)
	soon := withTag("Soon", StatusFuture, &when)
	counts := func() [3]int {
		t.Helper()
		one, _, err := db.Term(ctx, TaxTag, tag.ID)
		if err != nil {
			t.Fatal(err)
		}
		all, err := db.Terms(ctx, TaxTag)
		if err != nil || len(all) != 1 {
			t.Fatalf("Terms: %v %v", all, err)
		}
		_, rel, err := db.Event(ctx, published.ID)
		if err != nil {
			t.Fatal(err)
		}
		return [3]int{one.Count, all[0].Count, rel.Terms[tag.ID].Count}
	}
	steps := []struct {
		name string
		do   func() error
		want int
	}{
		{"before the date", func() error { return nil }, 1},
		{"the date passes", func() error { now = when; return nil }, 3},
		{"a due event is sent unchanged", func() error {
			_, err := db.UpdateEvent(ctx, admin, soon.ID, &EventInput{PostInput: PostInput{Title: ptr("Soon")}})
			return err
		}, 3},
		{"a due event is edited", func() error {
			_, err := db.UpdateEvent(ctx, admin, later.ID, &EventInput{PostInput: PostInput{Title: ptr("Later, edited")}})
			return err
		}, 3},
		{"a due event is trashed", func() error { _, err := db.TrashEvent(ctx, admin, soon.ID); return err }, 2},
		{"PublishDue", func() error { _, err := db.PublishDue(ctx); return err }, 2},
		{"the edited event is trashed", func() error { _, err := db.TrashEvent(ctx, admin, later.ID); return err }, 1},
	}
	for _, s := range steps {
		if err := s.do(); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if got := counts(); got != [3]int{s.want, s.want, s.want} {
			t.Errorf("%s: counts by Term, Terms, embedded %v, want %d (docs/API.md, The term object, Statuses)", s.name, got, s.want)
		}
	}
}

// TestSchema1Migrates: a store written before the scheduled bucket gets it at open, and its term counts
// are recounted from stored statuses.
func TestSchema1Migrates(t *testing.T) {
	now := testNow
	path := filepath.Join(t.TempDir(), "calendar.db")
	open := func() *DB {
		db, err := Open(path, Options{Now: func() time.Time { return now }, Logger: zaptest.NewLogger(t)})
		if err != nil {
			t.Fatal(err)
		}
		return db
	}
	db := open()
	tag, err := db.CreateTerm(ctx, admin, TaxTag, &TermInput{Name: ptr("Outdoor")})
	if err != nil {
		t.Fatal(err)
	}
	in := newEvent(t, "Out")
	in.Tags = &[]string{utoa(tag.ID)}
	mustCreateEvent(t, db, admin, in)
	when := testNow.Add(time.Hour)
	in = newEvent(t, "Scheduled")
	in.Tags, in.Status, in.Date = &[]string{utoa(tag.ID)}, ptr(StatusFuture), &when
	mustCreateEvent(t, db, admin, in)
	err = db.kv.Update(ctx, func(tx kv.RwTx) error { // what schema 1 had: no bucket, and a count gone wrong
		if err := tx.DeleteBucket(bScheduled); err != nil {
			return err
		}
		if err := setTagCount(tx, tag.ID, 5); err != nil {
			return err
		}
		return tx.Put(bMeta, kSchema, u64(1))
	})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()

	db = open()
	defer db.Close()
	for _, step := range []struct {
		at   time.Time
		want int
	}{{testNow, 1}, {when, 2}} {
		now = step.at
		if term, _, err := db.Term(ctx, TaxTag, tag.ID); err != nil || term.Count != step.want {
			t.Errorf("at %v: count %v, %v; want %d", step.at, term, err, step.want)
		}
	}
}

// TestLoadReportsTheNextScheduledDate: Load says when the next scheduled event publishes, from the
// same snapshot as the records, so caches of term counts know when they expire.
func TestLoadReportsTheNextScheduledDate(t *testing.T) {
	now := testNow
	db := openClockDB(t, &now)
	e := mustCreateEvent(t, db, admin, newEvent(t, "Out"))
	next := func() time.Time {
		t.Helper()
		recs, _, err := db.Load(ctx, TypeEvent, []uint64{e.ID})
		if err != nil {
			t.Fatal(err)
		}
		return recs.NextScheduled
	}
	if got := next(); !got.IsZero() {
		t.Errorf("nothing scheduled: %v", got)
	}
	soon, later := testNow.Add(time.Hour), testNow.Add(2*time.Hour)
	for _, when := range []time.Time{later, soon} {
		in := newEvent(t, "Scheduled")
		in.Status, in.Date = ptr(StatusFuture), &when
		mustCreateEvent(t, db, admin, in)
	}
	for _, step := range []struct{ at, want time.Time }{
		{testNow, soon}, {soon.Add(-time.Second), soon}, {soon, later}, {later, time.Time{}},
	} {
		now = step.at
		if got := next(); !got.Equal(step.want) {
			t.Errorf("at %v: next scheduled %v, want %v", step.at, got, step.want)
		}
	}
}

// TestPublishDueInBatches: due records beyond one batch are all published, in one call.
func TestPublishDueInBatches(t *testing.T) {
	now := testNow
	db := openClockDB(t, &now)
	when := testNow.Add(time.Minute)
	err := db.Bulk(ctx, admin, func(b *Bulk) error {
		for i := range publishBatch + 1 {
			in := newEvent(t, "Scheduled "+utoa(uint64(i)))
			in.Status, in.Date = ptr(StatusFuture), &when
			if _, err := b.CreateEvent("en", in); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	now = when
	if n, err := db.PublishDue(ctx); err != nil || n != publishBatch+1 {
		t.Errorf("PublishDue = %d, %v; want %d", n, err, publishBatch+1)
	}
}

// TestPublishDueDropsStrayEntries: an entry of the scheduled bucket that names no record scheduled at
// its date (none should exist) is dropped, and does not hold up the due records behind it.
func TestPublishDueDropsStrayEntries(t *testing.T) {
	now := testNow
	db := openClockDB(t, &now)
	published := mustCreateEvent(t, db, admin, newEvent(t, "Out"))
	when := testNow.Add(time.Minute)
	in := newEvent(t, "Scheduled")
	in.Status, in.Date = ptr(StatusFuture), &when
	scheduled := mustCreateEvent(t, db, admin, in)
	err := db.kv.Update(ctx, func(tx kv.RwTx) error {
		for _, k := range [][]byte{scheduledKey(testNow, published.ID), scheduledKey(testNow, 999), scheduledKey(testNow, scheduled.ID)} {
			if err := tx.Put(bScheduled, k, nil); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	now = when
	if n, err := db.PublishDue(ctx); err != nil || n != 1 {
		t.Errorf("PublishDue = %d, %v; want 1", n, err)
	}
	if got := storedStatus(t, db, bEvents, scheduled.ID).Status; got != StatusPublish {
		t.Errorf("the scheduled event is stored as %s, want publish", got)
	}
}

// TestPublishDueSkipsEntriesGoneSinceRead: an entry read as due whose record a write unscheduled
// before the batch's write transaction is skipped: no rewrite, and no report of a stray entry.
func TestPublishDueSkipsEntriesGoneSinceRead(t *testing.T) {
	now := testNow
	db := openClockDB(t, &now)
	core, logs := observer.New(zapcore.WarnLevel)
	db.log = zap.New(core)
	when := testNow.Add(time.Minute)
	in := newEvent(t, "Scheduled")
	in.Status, in.Date = ptr(StatusFuture), &when
	e := mustCreateEvent(t, db, admin, in)
	now = when
	keys, err := db.dueEntries(ctx)
	if err != nil || len(keys) != 1 {
		t.Fatalf("due entries %x, %v; want the event's", keys, err)
	}
	if _, err := db.UpdateEvent(ctx, admin, e.ID, &EventInput{PostInput: PostInput{Status: ptr(StatusDraft)}}); err != nil {
		t.Fatal(err)
	}
	if n, err := db.publishDue(ctx, keys); err != nil || n != 0 {
		t.Errorf("publishDue = %d, %v; want 0", n, err)
	}
	if got := storedStatus(t, db, bEvents, e.ID).Status; got != StatusDraft {
		t.Errorf("the event is stored as %s, want draft", got)
	}
	if logs.Len() != 0 {
		t.Errorf("logged %v", logs.All())
	}
}

// setTagCount stores n as tag id's count, as an older calendard may have left it.
func setTagCount(tx kv.RwTx, id uint64, n int) error {
	term, err := get[Term](tx, bTags, id)
	if err != nil {
		return err
	}
	term.Count = n
	return put(tx, bTags, id, term)
}

// TestNeverPublic: a record created unpublished is marked so until it is first public (published, a
// scheduled date passed, or trashed from either); then the mark is gone for good.
func TestNeverPublic(t *testing.T) {
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	db := openClockDB(t, &now)
	write := func(id uint64, in PostInput) uint64 {
		t.Helper()
		e, err := db.UpdateEvent(ctx, admin, id, &EventInput{PostInput: in})
		if err != nil {
			t.Fatal(err)
		}
		return e.ID
	}
	trash := func(id uint64) {
		t.Helper()
		if _, err := db.TrashEvent(ctx, admin, id); err != nil {
			t.Fatal(err)
		}
	}
	at := func(s Status) PostInput { return PostInput{Status: ptr(s)} }
	create := func(s Status) uint64 {
		in := newEvent(t, "E")
		in.Status = ptr(s)
		if s == StatusFuture {
			in.Date = ptr(now.Add(time.Hour))
		}
		return mustCreateEvent(t, db, admin, in).ID
	}
	for _, tc := range []struct {
		name  string
		steps func() uint64
		want  bool
	}{
		{"a draft", func() uint64 { return create(StatusDraft) }, true},
		{"a draft trashed", func() uint64 { id := create(StatusDraft); trash(id); return id }, true},
		{"a private record", func() uint64 { return create(StatusPrivate) }, true},
		{"published", func() uint64 { return create(StatusPublish) }, false},
		{"a draft published", func() uint64 { return write(create(StatusDraft), at(StatusPublish)) }, false},
		{"published, back to draft, trashed", func() uint64 {
			id := write(create(StatusPublish), at(StatusDraft))
			trash(id)
			return id
		}, false},
		{"scheduled, not yet due, edited", func() uint64 { return write(create(StatusFuture), PostInput{Title: ptr("F")}) }, true},
		{"scheduled, due, then unpublished", func() uint64 {
			id := create(StatusFuture)
			now = now.Add(2 * time.Hour)
			return write(id, at(StatusDraft))
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := storedStatus(t, db, bEvents, tc.steps()).NeverPublic; got != tc.want {
				t.Errorf("NeverPublic %v, want %v", got, tc.want)
			}
		})
	}
}
