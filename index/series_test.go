package index

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/calendard/calendard/storage"
	"github.com/calendard/calendard/storage/datetime"
)

// A series' text is indexed once: its occurrences with the parent's text have no Bleve document and
// are found through the parent's; an occurrence edited on its own gets a document of its own; and
// when the parent's text changes, an occurrence the series does not rewrite (one in the trash) keeps
// its text, and is found by that text only.
func TestSeriesTextIndexedOnce(t *testing.T) {
	ctx := context.Background()
	w := newStore(t, t.TempDir(), 1)
	db, admin := w.db, w.users[0]
	start, end := dateExpr(t, testNow.AddDate(0, 0, 1)), dateExpr(t, testNow.AddDate(0, 0, 1).Add(time.Hour))
	in := &storage.EventInput{PostInput: storage.PostInput{Title: ptr("Rehearsal"), Description: ptr("<p>Brass quintet</p>")},
		Start: &start, End: &end, Recurrence: &[]string{"RRULE:FREQ=DAILY;COUNT=10"}}
	parent, err := db.CreateEvent(ctx, admin, "en", in)
	if err != nil {
		t.Fatal(err)
	}
	ix := openIndex(t, filepath.Join(t.TempDir(), "index"), db)
	defer ix.Close()
	occurrences := func() []uint64 {
		t.Helper()
		p, err := ix.Events(ctx, &EventFilter{Lang: "en", Visibility: Visibility{Actor: admin}, Now: testNow,
			Start: testNow, End: testNow.AddDate(1, 0, 0), Parent: parent.ID, Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		return p.IDs
	}
	series := append([]uint64{parent.ID}, occurrences()...)
	if len(series) != 10 {
		t.Fatalf("the series has %d events, want 10", len(series))
	}
	search := func(q string, statuses ...storage.Status) []uint64 {
		t.Helper()
		p, err := ix.Events(ctx, &EventFilter{Lang: "en", Visibility: Visibility{Actor: admin, Statuses: statuses}, Now: testNow,
			Start: testNow, End: testNow.AddDate(1, 0, 0), Search: q, Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		return p.IDs
	}
	documents := func() uint64 {
		t.Helper()
		n, err := ix.langs["en"].bleve.DocCount()
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := documents(); n != 1 {
		t.Errorf("a series of 10 has %d documents, want 1", n)
	}
	if got := search("quintet"); !slices.Equal(got, series) {
		t.Errorf("search quintet = %v, want the series %v", got, series)
	}

	edited, trashed := series[3], series[5]
	if _, err := db.UpdateEvent(ctx, admin, edited, &storage.EventInput{PostInput: storage.PostInput{Description: ptr("String trio")}}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.TrashEvent(ctx, admin, trashed); err != nil {
		t.Fatal(err)
	}
	syncAll(t, ix) // the trashed occurrence still shares the parent's text
	if _, err := db.UpdateEvent(ctx, admin, parent.ID, &storage.EventInput{PostInput: storage.PostInput{Description: ptr("Brass octet")}}); err != nil {
		t.Fatal(err)
	}
	syncAll(t, ix)
	if n := documents(); n != 3 {
		t.Errorf("after an occurrence was edited and one trashed, the series has %d documents, want 3", n)
	}
	others := slices.DeleteFunc(slices.Clone(series), func(id uint64) bool { return id == edited || id == trashed })
	for _, tc := range []struct {
		search   string
		statuses []storage.Status
		want     []uint64
	}{
		{"octet", nil, others},
		{"brass", nil, others},
		{"trio", nil, []uint64{edited}},
		{"quintet", nil, nil},
		{"quintet", []storage.Status{storage.StatusTrash}, []uint64{trashed}},
		{"octet", []storage.Status{storage.StatusTrash}, nil},
	} {
		if got := search(tc.search, tc.statuses...); !slices.Equal(got, tc.want) {
			t.Errorf("search %q in %v = %v, want %v", tc.search, tc.statuses, got, tc.want)
		}
	}
	if n, err := ix.Check(ctx); err != nil || n != 0 {
		t.Errorf("Check = %d, %v; want 0, nil", n, err)
	}
	// A restart from the saved projections, and a rebuild, decide alike.
	if _, err := ix.Checkpoint(ctx); err != nil {
		t.Fatal(err)
	}
	rebuilt := openIndex(t, filepath.Join(t.TempDir(), "index"), db)
	defer rebuilt.Close()
	sameProjections(t, ix, rebuilt)
}

func dateExpr(t *testing.T, at time.Time) datetime.Expr {
	t.Helper()
	e, err := datetime.Parse(at.Format(datetime.DB))
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// plain bounds a record's searched text at maxSearchedText bytes, cut before a space, or at a
// character's end when there is none, and keeps every piece it gives whole.
func TestPlainBoundsText(t *testing.T) {
	long := strings.Repeat("word ", maxSearchedText/5+10)
	accents := strings.Repeat("é", maxSearchedText) // no space: cut at a character's end
	tests := []struct {
		name   string
		fields []string
		want   []string // the pieces, the last possibly cut
	}{
		{"short", []string{"Title", "", "<p>Some text</p>"}, []string{"Title", "Some text"}},
		{"one long field", []string{long}, []string{long}},
		{"the title first", []string{"Title", long}, []string{"Title", long}},
		{"nothing after the bound", []string{long, "Excerpt"}, []string{long}},
		{"no space", []string{accents}, []string{accents}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := plain(tc.fields...)
			if len(got) != len(tc.want) {
				t.Fatalf("plain gives %d pieces, want %d", len(got), len(tc.want))
			}
			total := 0
			for i, g := range got {
				total += len(g)
				want := tc.want[i]
				switch {
				case !strings.HasPrefix(want, g):
					t.Errorf("piece %d is not the beginning of its field", i)
				case i < len(got)-1 && g != want:
					t.Errorf("piece %d is cut, though another follows it", i)
				case !utf8.ValidString(g):
					t.Errorf("piece %d is cut inside a character", i)
				case g != want && strings.Contains(want[len(g)-8:len(g)], " ") && want[len(g)] != ' ':
					t.Errorf("piece %d is cut inside a word: …%q|%q…", i, g[len(g)-8:], want[len(g):len(g)+8])
				}
			}
			if total > maxSearchedText || total < min(maxSearchedText-8, len(strings.Join(tc.want, ""))) {
				t.Errorf("plain gives %d bytes, want at most %d, and all of them unless cut", total, maxSearchedText)
			}
		})
	}
}

// The syncer applies a run of large records in batches of bounded text, and the build leaves the
// documents that would take a segment past its bound for later: every record is found all the same.
func TestLargeTextsInBoundedBatches(t *testing.T) {
	ctx := context.Background()
	w := newStore(t, t.TempDir(), 1)
	db, admin := w.db, w.users[0]
	// 70 events of 64 KB: 4.5 MB, more than one segment of a build or one batch of the syncer holds.
	const events = 70
	filler := strings.Repeat("lorem ipsum dolor ", maxSearchedText/18)
	create := func(from, to int) {
		for i := from; i < to; i++ {
			title := "Lecture " + string(rune('a'+i%26)) + string(rune('a'+i/26))
			at := dateExpr(t, testNow.AddDate(0, 0, 1+i))
			in := &storage.EventInput{PostInput: storage.PostInput{Title: ptr(title), Description: ptr(filler)}, Start: &at, End: &at}
			if _, err := db.CreateEvent(ctx, admin, "en", in); err != nil {
				t.Fatal(err)
			}
		}
	}
	found := func(ix *Index) {
		t.Helper()
		for i := range events {
			q := "lecture " + string(rune('a'+i%26)) + string(rune('a'+i/26))
			p, err := ix.Events(ctx, &EventFilter{Lang: "en", Visibility: Visibility{Actor: admin}, Now: testNow,
				Start: testNow, End: testNow.AddDate(1, 0, 0), Search: `"` + q + `"`, Limit: 10})
			if err != nil {
				t.Fatal(err)
			}
			if p.Total != 1 {
				t.Errorf("search %q finds %d events, want 1", q, p.Total)
			}
		}
	}

	ix := openIndex(t, filepath.Join(t.TempDir(), "index"), db)
	create(0, events)
	n, err := ix.SyncOnce(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if most := (syncTextBytes/maxSearchedText + syncChunk) * 2; n >= events || n > most {
		t.Errorf("one SyncOnce applied %d entries of %d events of 64 KB, want at most %d", n, events, most)
	}
	syncAll(t, ix)
	found(ix)
	ix.Close()

	dir := filepath.Join(t.TempDir(), "index")
	built, logs := openLogged(t, dir, db)
	if logs.FilterMessage("indexing the documents left out of the build").Len() != 1 {
		t.Errorf("the build left no document out: %v", logs.All())
	}
	found(built)
}
