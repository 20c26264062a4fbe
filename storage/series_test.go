package storage

import (
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/calendard/calendard/storage/kv"
)

// occurrencesOf reads the occurrences of series parent, by day of their rule-given start.
func occurrencesOf(t testing.TB, db *DB, parent uint64) map[string]*Event {
	t.Helper()
	out := map[string]*Event{}
	err := db.kv.View(ctx, func(tx kv.Tx) error {
		c := tx.Cursor(bSeries)
		for k, _ := c.Seek(u64(parent)); len(k) == 16 && beUint(k[:8]) == parent; k, _ = c.Next() {
			e, err := loadPost[Event](tx, TypeEvent, binary.BigEndian.Uint64(k[8:]), db.now())
			if err != nil {
				return err
			}
			out[e.day()] = e
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// live keeps the days whose occurrence is not in the trash, sorted.
func live(occ map[string]*Event) []string {
	var days []string
	for d, e := range occ {
		if e.Status != StatusTrash {
			days = append(days, d)
		}
	}
	slices.Sort(days)
	return days
}

func weekly(t testing.TB, lines ...string) *EventInput {
	in := &EventInput{PostInput: PostInput{Title: ptr("Choir")}, Timezone: ptr("Europe/Paris"),
		Start: expr(t, "2026-10-13 19:00:00"), End: expr(t, "2026-10-13 21:00:00"), Recurrence: &lines}
	return in
}

// TestSeriesInAFixedOffsetZone: trashing an occurrence of a series in a zone without an IANA name
// (UTC+5) excludes it by its UTC instant, a line the parent's recurrence reads back: the series stays
// editable, and restoring the occurrence brings its day back.
func TestSeriesInAFixedOffsetZone(t *testing.T) {
	now := time.Date(2026, 10, 1, 12, 0, 0, 0, time.UTC)
	db := openClockDB(t, &now)
	in := weekly(t, "RRULE:FREQ=WEEKLY;COUNT=3")
	in.Timezone = ptr("UTC+5")
	p := mustCreateEvent(t, db, admin, in)
	occ := occurrencesOf(t, db, p.ID)
	if _, err := db.TrashEvent(ctx, admin, occ["2026-10-20"].ID); err != nil {
		t.Fatal(err)
	}
	parent, _, _ := db.Event(ctx, p.ID)
	if !slices.Contains(parent.Recurrence, "EXDATE:20261020T140000Z") {
		t.Errorf("recurrence after trashing an occurrence: %q", parent.Recurrence)
	}
	if _, err := db.UpdateEvent(ctx, admin, p.ID, &EventInput{PostInput: PostInput{Title: ptr("Choir, renamed")}}); err != nil {
		t.Fatalf("the series after trashing an occurrence: %v", err)
	}
	if _, err := db.UpdateEvent(ctx, admin, occ["2026-10-20"].ID, &EventInput{PostInput: PostInput{Status: ptr(StatusPublish)}}); err != nil {
		t.Fatal(err)
	}
	if got := live(occurrencesOf(t, db, p.ID)); !slices.Equal(got, []string{"2026-10-20", "2026-10-27"}) { // the occurrences after the parent
		t.Errorf("days after the restore: %v", got)
	}
}

// TestSeriesMaterialises: the parent is the first occurrence, every further one an event with the
// parent's fields, its slug and dates in the event's zone.
func TestSeriesMaterialises(t *testing.T) {
	db := mustOpenDB(t)
	taken := newEvent(t, "Taken")
	taken.Slug = ptr("choir-2026-11-03")
	mustCreateEvent(t, db, admin, taken)
	p := mustCreateEvent(t, db, admin, weekly(t, "RRULE:FREQ=WEEKLY;COUNT=4"))
	occ := occurrencesOf(t, db, p.ID)
	if s := occ["2026-11-03"].Slug; s != "choir-2026-11-03-2" {
		t.Errorf("slug beside a taken one: %s", s)
	}
	if got := live(occ); !slices.Equal(got, []string{"2026-10-20", "2026-10-27", "2026-11-03"}) {
		t.Fatalf("occurrences %v", got)
	}
	c := occ["2026-10-27"] // summer time has ended: 19:00 is now 18:00 UTC
	if c.Start != "2026-10-27 19:00:00" || c.End != "2026-10-27 21:00:00" || c.StartUTC.Hour() != 18 {
		t.Errorf("dates %s %s %v", c.Start, c.End, c.StartUTC)
	}
	if c.Slug != "choir-2026-10-27" || c.Parent != p.ID || c.Title != "Choir" || c.Recurrence != nil || c.Status != StatusPublish {
		t.Errorf("occurrence %+v", c)
	}
	if p.Recurrence == nil || p.Parent != 0 {
		t.Errorf("parent %+v", p)
	}
}

// TestSeriesRejectsBadRules: a rule the series cannot hold fails the write, which leaves nothing.
func TestSeriesRejectsBadRules(t *testing.T) {
	db, err := openTestDB(t, Options{Now: func() time.Time { return testNow }, SeriesHorizon: 60})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, lines := range [][]string{{"RRULE:FREQ=HOURLY"}, {"RRULE:FREQ=DAILY;COUNT=2000"}, {"nonsense"}} {
		_, err := db.CreateEvent(ctx, admin, "en", weekly(t, lines...))
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Field != "recurrence" || !strings.Contains(fe.Reason, lines[0]) {
			t.Errorf("%q: err = %v, want a recurrence error quoting it", lines, err)
		}
	}
	p := mustCreateEvent(t, db, admin, weekly(t, "RRULE:FREQ=WEEKLY;COUNT=2"))
	c := occurrencesOf(t, db, p.ID)["2026-10-20"]
	_, err = db.UpdateEvent(ctx, admin, c.ID, &EventInput{Recurrence: &[]string{"RRULE:FREQ=DAILY"}})
	var fe *FieldError
	if !errors.As(err, &fe) || fe.Field != "recurrence" {
		t.Errorf("a rule on an occurrence: err = %v", err)
	}
}

// TestSeriesEdits walks the life of a series: edits of the parent reach the occurrences not edited
// on their own, a rule change regenerates and keeps exceptions, trashing excludes a day.
func TestSeriesEdits(t *testing.T) {
	now := time.Date(2026, 10, 1, 12, 0, 0, 0, time.UTC)
	db := openClockDB(t, &now)
	p := mustCreateEvent(t, db, admin, weekly(t, "RRULE:FREQ=WEEKLY;COUNT=5"))
	occ := occurrencesOf(t, db, p.ID)

	// One occurrence edited on its own becomes an exception.
	if _, err := db.UpdateEvent(ctx, admin, occ["2026-10-27"].ID, &EventInput{PostInput: PostInput{Title: ptr("Choir, with guests")}}); err != nil {
		t.Fatal(err)
	}
	// The parent's title and time reach the others.
	if _, err := db.UpdateEvent(ctx, admin, p.ID, &EventInput{PostInput: PostInput{Title: ptr("Big choir")},
		Start: expr(t, "2026-10-13 20:00:00"), End: expr(t, "2026-10-13 22:00:00")}); err != nil {
		t.Fatal(err)
	}
	occ = occurrencesOf(t, db, p.ID)
	if e := occ["2026-11-03"]; e.Title != "Big choir" || e.Start != "2026-11-03 20:00:00" || e.Slug != "choir-2026-11-03" {
		t.Errorf("follower %s %s %s", e.Title, e.Start, e.Slug)
	}
	if e := occ["2026-10-27"]; e.Title != "Choir, with guests" || e.Start != "2026-10-27 19:00:00" || !e.Detached {
		t.Errorf("exception %s %s detached=%v", e.Title, e.Start, e.Detached)
	}

	// Trashing one occurrence excludes its day; restoring it includes the day again.
	if _, err := db.TrashEvent(ctx, admin, occ["2026-11-03"].ID); err != nil {
		t.Fatal(err)
	}
	parent, _, _ := db.Event(ctx, p.ID)
	if !slices.Contains(parent.Recurrence, "EXDATE;TZID=Europe/Paris:20261103T200000") {
		t.Errorf("recurrence after trashing an occurrence: %q", parent.Recurrence)
	}
	if _, err := db.UpdateEvent(ctx, admin, occ["2026-11-03"].ID, &EventInput{PostInput: PostInput{Status: ptr(StatusPublish)}}); err != nil {
		t.Fatal(err)
	}
	parent, _, _ = db.Event(ctx, p.ID)
	if len(parent.Recurrence) != 1 {
		t.Errorf("recurrence after restoring: %q", parent.Recurrence)
	}
	if e := occurrencesOf(t, db, p.ID)["2026-11-03"]; e.Detached || e.Status != StatusPublish {
		t.Errorf("restored occurrence detached=%v status=%s", e.Detached, e.Status)
	}

	// A new rule: the future days it no longer gives go to the trash, the exception stays although
	// the rule no longer gives its day.
	if _, err := db.UpdateEvent(ctx, admin, p.ID, &EventInput{Recurrence: &[]string{"RRULE:FREQ=WEEKLY;INTERVAL=4;COUNT=2"}}); err != nil {
		t.Fatal(err)
	}
	occ = occurrencesOf(t, db, p.ID)
	if got := live(occ); !slices.Equal(got, []string{"2026-10-27", "2026-11-10"}) {
		t.Errorf("after the rule change: %v", got)
	}
	// Restoring an occurrence the rule no longer gives keeps it, as an exception.
	if _, err := db.UpdateEvent(ctx, admin, occ["2026-11-03"].ID, &EventInput{PostInput: PostInput{Status: ptr(StatusPublish)}}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.UpdateEvent(ctx, admin, p.ID, &EventInput{PostInput: PostInput{Title: ptr("Choir again")}}); err != nil {
		t.Fatal(err)
	}
	occ = occurrencesOf(t, db, p.ID)
	if got := live(occ); !slices.Equal(got, []string{"2026-10-27", "2026-11-03", "2026-11-10"}) || !occ["2026-11-03"].Detached {
		t.Errorf("after restoring a day the rule does not give: %v", got)
	}
	if _, err := db.TrashEvent(ctx, admin, occ["2026-11-03"].ID); err != nil {
		t.Fatal(err)
	}

	// Trashing the parent trashes the series; restoring it brings back what the rule gives.
	if _, err := db.TrashEvent(ctx, admin, p.ID); err != nil {
		t.Fatal(err)
	}
	if got := live(occurrencesOf(t, db, p.ID)); len(got) != 0 {
		t.Errorf("after trashing the parent: %v", got)
	}
	if _, err := db.UpdateEvent(ctx, admin, p.ID, &EventInput{PostInput: PostInput{Status: ptr(StatusPublish)}}); err != nil {
		t.Fatal(err)
	}
	occ = occurrencesOf(t, db, p.ID)
	if got := live(occ); !slices.Equal(got, []string{"2026-10-27", "2026-11-10"}) {
		t.Errorf("after restoring the parent: %v", got)
	}
	if occ["2026-10-27"].Title != "Choir, with guests" {
		t.Errorf("the exception after restoring the parent: %s", occ["2026-10-27"].Title)
	}
	if occ["2026-11-10"].Slug != "choir-2026-11-10" {
		t.Errorf("slug after restoring: %s", occ["2026-11-10"].Slug)
	}

	// No rule: the occurrences go.
	if _, err := db.UpdateEvent(ctx, admin, p.ID, &EventInput{Recurrence: &[]string{}}); err != nil {
		t.Fatal(err)
	}
	if got := live(occurrencesOf(t, db, p.ID)); len(got) != 0 {
		t.Errorf("without a rule: %v", got)
	}
}

// TestSeriesPastStays: a rule change regenerates future occurrences only.
func TestSeriesPastStays(t *testing.T) {
	now := time.Date(2026, 10, 29, 12, 0, 0, 0, time.UTC)
	db := openClockDB(t, &now)
	p := mustCreateEvent(t, db, admin, weekly(t, "RRULE:FREQ=WEEKLY;COUNT=5"))
	if _, err := db.UpdateEvent(ctx, admin, p.ID, &EventInput{Recurrence: &[]string{"RRULE:FREQ=WEEKLY;COUNT=2"}}); err != nil {
		t.Fatal(err)
	}
	if got := live(occurrencesOf(t, db, p.ID)); !slices.Equal(got, []string{"2026-10-20", "2026-10-27"}) {
		t.Errorf("occurrences %v, want the past one kept", got)
	}
}

// TestExtendSeries: the horizon moves with the clock, and the job adds what came inside it.
func TestExtendSeries(t *testing.T) {
	now := time.Date(2026, 10, 1, 12, 0, 0, 0, time.UTC)
	db := openClockDB(t, &now)
	p := mustCreateEvent(t, db, admin, weekly(t, "RRULE:FREQ=MONTHLY"))
	before := len(occurrencesOf(t, db, p.ID))
	if before != 24 {
		t.Fatalf("%d occurrences, want 24 months ahead", before)
	}
	now = now.AddDate(0, 3, 0) // the horizon moves from 2028-10-13 to 2029-01-01
	n, err := db.ExtendSeries(ctx)
	if err != nil || n != 1 {
		t.Fatalf("ExtendSeries = %d, %v", n, err)
	}
	occ := occurrencesOf(t, db, p.ID)
	if len(live(occ)) != before+2 || occ["2028-12-13"] == nil || occ["2028-12-13"].Status != StatusPublish {
		t.Errorf("after three months: %v", live(occ))
	}
	if n, err := db.ExtendSeries(ctx); err != nil || n != 0 {
		t.Errorf("a second run wrote %d series (%v)", n, err)
	}
}

// TestExtendSeriesGoesOnPastAFailure: a series whose rule no longer fits a window made larger fails
// alone; the others are extended.
func TestExtendSeriesGoesOnPastAFailure(t *testing.T) {
	now := time.Date(2026, 10, 1, 12, 0, 0, 0, time.UTC)
	path := filepath.Join(t.TempDir(), "calendar.db")
	open := func(horizon int) *DB {
		db, err := Open(path, Options{Now: func() time.Time { return now }, SeriesHorizon: horizon})
		if err != nil {
			t.Fatal(err)
		}
		return db
	}
	db := open(24)
	daily := mustCreateEvent(t, db, admin, weekly(t, "RRULE:FREQ=DAILY"))
	monthly := mustCreateEvent(t, db, admin, weekly(t, "RRULE:FREQ=MONTHLY"))
	db.Close()
	db = open(60)
	defer db.Close()
	n, err := db.ExtendSeries(ctx)
	var fe *FieldError
	if n != 1 || !errors.As(err, &fe) || !strings.Contains(err.Error(), fmt.Sprint(daily.ID)) {
		t.Fatalf("ExtendSeries = %d, %v; want the monthly series written and the daily one failed", n, err)
	}
	if got := len(occurrencesOf(t, db, monthly.ID)); got != 60 {
		t.Errorf("monthly series: %d occurrences, want 60 months", got)
	}
}

// TestBulkOccurrence: an importer finds the occurrence a RECURRENCE-ID names and writes the exception.
func TestBulkOccurrence(t *testing.T) {
	db := mustOpenDB(t)
	err := db.Bulk(ctx, admin, func(b *Bulk) error {
		p, _, err := b.PutEvent(500, "en", weekly(t, "RRULE:FREQ=WEEKLY;COUNT=3"))
		if err != nil {
			return err
		}
		id, err := b.Occurrence(p.ID, time.Date(2026, 10, 20, 17, 0, 0, 0, time.UTC))
		if err != nil {
			return err
		}
		_, _, err = b.PutEvent(id, "en", &EventInput{PostInput: PostInput{Title: ptr("Moved")}, Start: expr(t, "2026-10-21 19:00:00"),
			End: expr(t, "2026-10-21 21:00:00")})
		if err != nil {
			return err
		}
		if _, err := b.Occurrence(p.ID, time.Date(2026, 12, 20, 17, 0, 0, 0, time.UTC)); err != ErrNotFound {
			t.Errorf("a day without an occurrence: %v", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if e := occurrencesOf(t, db, 500)["2026-10-20"]; e.Title != "Moved" || !e.Detached || e.Start != "2026-10-21 19:00:00" {
		t.Errorf("exception %+v", e)
	}
}

// BenchmarkDailySeries writes a daily series of 730 occurrences, as one transaction each: create
// makes the parent and its 729 occurrences, update changes the parent's title, which every occurrence
// follows. It reports the median write (p50-ms) besides the mean.
func BenchmarkDailySeries(b *testing.B) {
	daily := func(title string) *EventInput {
		return &EventInput{PostInput: PostInput{Title: ptr(title)}, Timezone: ptr("Europe/Paris"),
			Start: expr(b, "2026-12-01 19:00:00"), End: expr(b, "2026-12-01 21:00:00"),
			Categories: &[]string{"Yoga"}, Recurrence: &[]string{"RRULE:FREQ=DAILY;COUNT=730"}}
	}
	median := func(b *testing.B, took []time.Duration) {
		slices.Sort(took)
		b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "p50-ms")
	}
	b.Run("create", func(b *testing.B) {
		db := mustOpenDB(b)
		var took []time.Duration
		for b.Loop() {
			start := time.Now()
			mustCreateEvent(b, db, admin, daily("Morning yoga"))
			took = append(took, time.Since(start))
		}
		median(b, took)
	})
	b.Run("update", func(b *testing.B) {
		db := mustOpenDB(b)
		p := mustCreateEvent(b, db, admin, daily("Morning yoga"))
		if n := len(occurrencesOf(b, db, p.ID)); n != 729 {
			b.Fatalf("%d occurrences", n)
		}
		var took []time.Duration
		i := 0
		for b.Loop() {
			i++
			start := time.Now()
			if _, err := db.UpdateEvent(ctx, admin, p.ID, &EventInput{PostInput: PostInput{Title: ptr(fmt.Sprint("Yoga ", i))}}); err != nil {
				b.Fatal(err)
			}
			took = append(took, time.Since(start))
		}
		median(b, took)
	})
}

// A series whose occurrences would copy more of the parent's text than SeriesMaxText is refused
// whole, on create and on an update that lengthens the text or the rule; a shorter one is kept.
func TestSeriesMaxText(t *testing.T) {
	db, err := openTestDB(t, Options{Now: func() time.Time { return testNow }, SeriesMaxText: 10_000})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	text := func(n int) *string { return ptr(strings.Repeat("x", n)) }
	in := weekly(t, "RRULE:FREQ=WEEKLY;COUNT=10") // 9 occurrences beside the parent
	in.Description = text(1_000)
	p := mustCreateEvent(t, db, admin, in) // 9 × (5 + 1,000) bytes
	tests := []struct {
		name string
		in   *EventInput
		ok   bool
	}{
		{"a shorter text", &EventInput{PostInput: PostInput{Description: text(500)}}, true},
		{"a text too long for the rule", &EventInput{PostInput: PostInput{Description: text(1_200)}}, false},
		{"a rule too long for the text", &EventInput{Recurrence: &[]string{"RRULE:FREQ=WEEKLY;COUNT=30"}}, false},
		{"a shorter rule and a longer text", &EventInput{PostInput: PostInput{Description: text(2_000)},
			Recurrence: &[]string{"RRULE:FREQ=WEEKLY;COUNT=5"}}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := occurrencesOf(t, db, p.ID)
			_, err := db.UpdateEvent(ctx, admin, p.ID, tc.in)
			var fe *FieldError
			switch {
			case tc.ok && err != nil:
				t.Fatalf("refused: %v", err)
			case !tc.ok && (!errors.As(err, &fe) || fe.Field != "recurrence" || !strings.Contains(fe.Reason, "10000 bytes")):
				t.Fatalf("err = %v, want a recurrence error naming the bound", err)
			case !tc.ok && !maps.EqualFunc(occurrencesOf(t, db, p.ID), before, func(a, b *Event) bool { return a.Modified.Equal(b.Modified) }):
				t.Errorf("a refused update changed the occurrences")
			}
		})
	}
	in = weekly(t, "RRULE:FREQ=DAILY")
	in.Description = text(65_000)
	if _, err := db.CreateEvent(ctx, admin, "en", in); err == nil {
		t.Errorf("a daily series with a 65 KB description was created")
	}
}

// TestSeriesOccurrenceLength: every occurrence lasts as long as its parent on the wall clock, whatever
// form its start comes in: an RDATE in UTC or in another zone than DTSTART (the instant it names, read
// in the event's zone), floating, a DATE (the parent's time of day), across a daylight-saving change.
func TestSeriesOccurrenceLength(t *testing.T) {
	now := time.Date(2026, 10, 1, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name       string
		start, end string // the parent's, Europe/Paris, in winter
		line       string
		want       [2]string // the occurrence's start and end on 2027-06-15, in Europe/Paris
	}{
		{"UTC across summer time", "2026-12-01 19:00:00", "2026-12-01 20:00:00", "RDATE:20270615T180000Z",
			[2]string{"2027-06-15 20:00:00", "2027-06-15 21:00:00"}},
		{"UTC, 1 h 30", "2026-12-01 19:00:00", "2026-12-01 20:30:00", "RDATE:20270615T170000Z",
			[2]string{"2027-06-15 19:00:00", "2027-06-15 20:30:00"}},
		{"another zone", "2026-12-01 19:00:00", "2026-12-01 20:00:00", "RDATE;TZID=America/New_York:20270615T120000",
			[2]string{"2027-06-15 18:00:00", "2027-06-15 19:00:00"}},
		{"floating", "2026-12-01 19:00:00", "2026-12-01 20:00:00", "RDATE:20270615T100000",
			[2]string{"2027-06-15 10:00:00", "2027-06-15 11:00:00"}},
		{"a date across summer time", "2026-12-01 19:00:00", "2026-12-01 20:00:00", "RDATE;VALUE=DATE:20270615",
			[2]string{"2027-06-15 19:00:00", "2027-06-15 20:00:00"}},
		{"a date-time at midnight is not a date", "2026-12-01 19:00:00", "2026-12-01 20:00:00", "RDATE;TZID=Europe/Paris:20270615T000000",
			[2]string{"2027-06-15 00:00:00", "2027-06-15 01:00:00"}},
		{"past midnight", "2026-12-01 23:00:00", "2026-12-02 00:30:00", "RDATE:20270615T200000Z",
			[2]string{"2027-06-15 22:00:00", "2027-06-15 23:30:00"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := openClockDB(t, &now)
			in := weekly(t, tc.line)
			in.Start, in.End = expr(t, tc.start), expr(t, tc.end)
			p := mustCreateEvent(t, db, admin, in)
			c := occurrencesOf(t, db, p.ID)["2027-06-15"]
			if c == nil {
				t.Fatalf("no occurrence on 2027-06-15: %v", slices.Sorted(maps.Keys(occurrencesOf(t, db, p.ID))))
			}
			if got := [2]string{c.Start, c.End}; got != tc.want {
				t.Errorf("occurrence %v, want %v", got, tc.want)
			}
			if got, want := c.EndUTC.Sub(c.StartUTC), p.EndUTC.Sub(p.StartUTC); got != want {
				t.Errorf("lasts %v, the parent %v", got, want)
			}
		})
	}
}

// TestFirstExcluded: a parent whose own day an EXDATE names, in whatever form (its zone, UTC, another
// zone, a date), is no event that day; an EXDATE of another day, or of none, leaves it one.
func TestFirstExcluded(t *testing.T) {
	start := time.Date(2026, 12, 1, 18, 0, 0, 0, time.UTC) // 19:00 in Paris, 23:00 in UTC+5
	for _, tc := range []struct {
		name  string
		zone  string
		lines []string
		want  bool
	}{
		{"in the start's zone", "Europe/Paris", []string{"RRULE:FREQ=WEEKLY", "EXDATE;TZID=Europe/Paris:20261201T190000"}, true},
		{"in UTC", "Europe/Paris", []string{"RRULE:FREQ=WEEKLY", "EXDATE:20261201T180000Z"}, true},
		{"in another zone", "Europe/Paris", []string{"RRULE:FREQ=WEEKLY", "EXDATE;TZID=America/New_York:20261201T130000"}, true},
		{"a date", "Europe/Paris", []string{"RRULE:FREQ=WEEKLY", "EXDATE;VALUE=DATE:20261201"}, true},
		{"among others", "Europe/Paris", []string{"RRULE:FREQ=WEEKLY", "EXDATE:20261208T180000Z,20261201T180000Z"}, true},
		{"the start's day in its own zone, not in UTC", "UTC+5", []string{"RRULE:FREQ=WEEKLY", "EXDATE;VALUE=DATE:20261201"}, true},
		{"UTC's day, not the zone's", "UTC+7", []string{"RRULE:FREQ=WEEKLY", "EXDATE;VALUE=DATE:20261201"}, false},
		{"another day", "Europe/Paris", []string{"RRULE:FREQ=WEEKLY", "EXDATE;TZID=Europe/Paris:20261208T190000"}, false},
		{"no EXDATE", "Europe/Paris", []string{"RRULE:FREQ=WEEKLY"}, false},
		{"a line that does not read", "Europe/Paris", []string{"RRULE:FREQ=WEEKLY", "EXDATE:2026-12-01"}, false},
		{"not a series", "Europe/Paris", nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := &Event{StartUTC: start, Timezone: tc.zone, Recurrence: tc.lines}
			if got := e.FirstExcluded(); got != tc.want {
				t.Errorf("FirstExcluded = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestTrashOccurrence: the occurrence of a day is cancelled through its series' parent, the first (an
// EXDATE of the parent's start, the parent kept) as any other (its record trashed); what is
// cancelled already is ErrTrashed, a day or an event without one a field error of `occurrence`.
func TestTrashOccurrence(t *testing.T) {
	now := time.Date(2026, 10, 1, 12, 0, 0, 0, time.UTC)
	db := openClockDB(t, &now)
	p := mustCreateEvent(t, db, admin, weekly(t, "RRULE:FREQ=WEEKLY;COUNT=3"))
	plain := mustCreateEvent(t, db, admin, &EventInput{PostInput: PostInput{Title: ptr("Talk")},
		Start: expr(t, "2026-10-14 19:00:00"), End: expr(t, "2026-10-14 20:00:00")})
	second := occurrencesOf(t, db, p.ID)["2026-10-20"].ID
	for _, tc := range []struct {
		name   string
		id     uint64
		day    string
		want   uint64 // the event cancelled
		err    error
		field  string // the FieldError's field, when err is ErrInvalid
		series []string
	}{
		{name: "the first", id: p.ID, day: "2026-10-13", want: p.ID, series: []string{"2026-10-20", "2026-10-27"}},
		{name: "the first again", id: p.ID, day: "2026-10-13", err: ErrTrashed},
		{name: "another", id: p.ID, day: "2026-10-20", want: second, series: []string{"2026-10-27"}},
		{name: "another again", id: p.ID, day: "2026-10-20", err: ErrTrashed},
		{name: "a day the rule does not give", id: p.ID, day: "2026-10-21", err: ErrInvalid, field: "occurrence"},
		{name: "through an occurrence", id: second, day: "2026-10-27", err: ErrInvalid, field: "occurrence"},
		{name: "not a series", id: plain.ID, day: "2026-10-14", err: ErrInvalid, field: "occurrence"},
		{name: "no such event", id: 999, day: "2026-10-14", err: ErrNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, err := db.TrashOccurrence(ctx, admin, tc.id, tc.day)
			if tc.err != nil {
				var fe *FieldError
				if !errors.Is(err, tc.err) || (tc.field != "" && (!errors.As(err, &fe) || fe.Field != tc.field)) {
					t.Fatalf("err = %v, want %v on %q", err, tc.err, tc.field)
				}
				return
			}
			if err != nil || e.ID != tc.want {
				t.Fatalf("cancelled %v (%v), want event %d", e, err, tc.want)
			}
			if got := live(occurrencesOf(t, db, p.ID)); !slices.Equal(got, tc.series) {
				t.Errorf("occurrences left %v, want %v", got, tc.series)
			}
		})
	}
	parent, _, err := db.Event(ctx, p.ID)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"RRULE:FREQ=WEEKLY;COUNT=3", "EXDATE;TZID=Europe/Paris:20261013T190000", "EXDATE;TZID=Europe/Paris:20261020T190000"}
	if !slices.Equal(parent.Recurrence, want) || parent.Status != StatusPublish || !parent.FirstExcluded() {
		t.Errorf("parent: %s, recurrence %q, first excluded %v", parent.Status, parent.Recurrence, parent.FirstExcluded())
	}
	// Taking the first EXDATE out brings the first occurrence back, and the others stay as they are.
	if _, err := db.UpdateEvent(ctx, admin, p.ID, &EventInput{Recurrence: &[]string{want[0], want[2]}}); err != nil {
		t.Fatal(err)
	}
	if parent, _, _ = db.Event(ctx, p.ID); parent.FirstExcluded() {
		t.Errorf("first excluded after the EXDATE went: %q", parent.Recurrence)
	}
	if got := live(occurrencesOf(t, db, p.ID)); !slices.Equal(got, []string{"2026-10-27"}) {
		t.Errorf("occurrences after bringing the first back: %v", got)
	}
	if _, err := db.TrashEvent(ctx, admin, p.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := db.TrashOccurrence(ctx, admin, p.ID, "2026-10-27"); !errors.Is(err, ErrTrashed) {
		t.Errorf("an occurrence of a trashed series: %v, want ErrTrashed", err)
	}
}
