package index

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/calendard/calendard/storage"
	"github.com/calendard/calendard/storage/datetime"
)

var testNow = time.Date(2026, 11, 22, 10, 15, 30, 0, time.UTC)

// seeds sets how many random data sets the equivalence tests try; raise it for a soak run.
var seeds = flag.Int("seeds", 3, "random data sets per equivalence test")

var vocabulary = []string{"Jazz", "jazzy", "concert", "concerts", "Café", "cafe", "Müller", "night", "nights", "market",
	"the", "and", "of", "festival", "Festivals", "theatre", "open", "air", "<b>bold</b>", "workshop", "workshops",
	"children", "child", "running", "run", "ÉTÉ", "summer", "blues", "rock", "rocks"}

var langs = []storage.Lang{"en", "fr", "de"}

// world is a random data set in a real store, plus the index built over it.
type world struct {
	db    *storage.DB
	ix    *Index
	users []storage.Actor
	rng   *rand.Rand
	// to is what newWorld's events link to.
	to *targets
}

func words(rng *rand.Rand, n int) string {
	out := make([]string, n)
	for i := range out {
		out[i] = vocabulary[rng.IntN(len(vocabulary))]
	}
	return strings.Join(out, " ")
}

func ptr[T any](v T) *T { return &v }

func newWorld(t *testing.T, seed uint64, events int) *world {
	t.Helper()
	ctx := context.Background()
	w := newStore(t, t.TempDir(), seed)
	db, admin := w.db, w.users[0]
	to := w.linkTargets(t)
	w.to = to
	create := func(i int) {
		l, in := w.randomEvent(t, to)
		if w.rng.IntN(15) == 0 { // a series: its occurrences share its fields
			in.Recurrence = &[]string{fmt.Sprintf("RRULE:FREQ=WEEKLY;COUNT=%d", 2+w.rng.IntN(5))}
		}
		if _, err := db.CreateEvent(ctx, admin, l, in); err != nil {
			t.Fatalf("event %d: %v", i, err)
		}
	}
	half := events / 2
	for i := range half {
		create(i)
	}
	// Half the data is there when the index opens (the rebuild path), half arrives afterwards through
	// the change log (the sync path), with updates and trashing mixed in.
	ix, err := Open(ctx, filepath.Join(t.TempDir(), "index"), db, Options{Logger: zaptest.NewLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	w.ix = ix
	for i := half; i < events; i++ {
		create(i)
		if w.rng.IntN(4) == 0 {
			w.mutate(t)
		}
	}
	for _, l := range langs {
		if w.rng.IntN(2) == 0 {
			if _, err := db.TrashVenue(ctx, admin, to.venues[l][0]); err != nil {
				t.Fatal(err)
			}
		}
	}
	syncAll(t, ix)
	return w
}

// syncAll applies the whole change log to ix.
func syncAll(tb testing.TB, ix *Index) {
	tb.Helper()
	for {
		n, err := ix.SyncOnce(context.Background())
		if err != nil {
			tb.Fatal(err)
		}
		if n == 0 {
			return
		}
	}
}

// newStore opens a store in dir holding one user per role, the administrator first.
func newStore(tb testing.TB, dir string, seed uint64) *world {
	tb.Helper()
	ctx := context.Background()
	db := openStore(tb, dir)
	w := &world{db: db, rng: rand.New(rand.NewPCG(seed, 7))}
	for i, role := range storage.Roles {
		u, err := db.CreateUser(ctx, storage.User{Login: fmt.Sprint("u", i), Email: fmt.Sprint("u", i, "@x.org"), Role: role})
		if err != nil {
			tb.Fatal(err)
		}
		w.users = append(w.users, storage.Actor{UserID: u.ID, Role: role})
	}
	return w
}

// openStore opens the store in dir, with the tests' clock, until the test ends.
func openStore(tb testing.TB, dir string) *storage.DB {
	tb.Helper()
	db, err := storage.Open(filepath.Join(dir, "calendar.db"), storage.Options{Now: func() time.Time { return testNow }})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}

// targets are what events link to: terms, and venues and organizers per language.
type targets struct {
	cats, tags   []uint64
	venues, orgs map[storage.Lang][]uint64
}

// linkTargets creates six categories (three of them children), six tags, and five venues (two
// thirds with a position) and five organizers per language.
func (w *world) linkTargets(tb testing.TB) *targets {
	tb.Helper()
	out := &targets{venues: map[storage.Lang][]uint64{}, orgs: map[storage.Lang][]uint64{}}
	err := w.db.Bulk(context.Background(), w.users[0], func(b *storage.Bulk) error {
		for i := range 6 {
			in := &storage.TermInput{Name: ptr(fmt.Sprint("Cat ", i))}
			if i > 2 {
				in.Parent = &out.cats[i-3]
			}
			c, err := b.CreateTerm(storage.TaxCategory, in)
			if err != nil {
				return err
			}
			out.cats = append(out.cats, c.ID)
			tg, err := b.CreateTerm(storage.TaxTag, &storage.TermInput{Name: ptr(fmt.Sprint("Tag ", i))})
			if err != nil {
				return err
			}
			out.tags = append(out.tags, tg.ID)
		}
		for _, l := range langs {
			for i := range 5 {
				in := &storage.VenueInput{PostInput: w.postInput(fmt.Sprint("Venue ", l, i, " ", words(w.rng, 2)))}
				in.City = ptr(words(w.rng, 1))
				if w.rng.IntN(3) > 0 {
					in.Geo = &storage.Geo{Lat: 48 + w.rng.Float64()*4, Lng: 2 + w.rng.Float64()*4}
				}
				id, err := b.CreateVenue(l, in)
				if err != nil {
					return err
				}
				out.venues[l] = append(out.venues[l], id)
				oid, err := b.CreateOrganizer(l, &storage.OrganizerInput{PostInput: w.postInput(fmt.Sprint("Org ", l, i, " ", words(w.rng, 2))),
					Email: ptr(words(w.rng, 1) + "@x.org")})
				if err != nil {
					return err
				}
				out.orgs[l] = append(out.orgs[l], oid)
			}
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

// randomEvent draws an event of a random language linking to some of to; the administrator may
// link anything, and the author is drawn from every role.
func (w *world) randomEvent(tb testing.TB, to *targets) (storage.Lang, *storage.EventInput) {
	l := langs[w.rng.IntN(len(langs))]
	in := w.eventInput(tb, to.cats, to.tags, to.venues[l], to.orgs[l])
	in.Author = &w.users[w.rng.IntN(len(w.users))].UserID
	return l, in
}

func (w *world) postInput(title string) storage.PostInput {
	statuses := []storage.Status{storage.StatusPublish, storage.StatusPublish, storage.StatusPublish, storage.StatusDraft,
		storage.StatusPending, storage.StatusPrivate, storage.StatusFuture}
	in := storage.PostInput{Title: ptr(title), Description: ptr(words(w.rng, w.rng.IntN(8)))}
	st := statuses[w.rng.IntN(len(statuses))]
	in.Status = &st
	if st == storage.StatusFuture || w.rng.IntN(5) == 0 {
		d := testNow.Add(time.Duration(w.rng.IntN(200)-100) * time.Hour)
		in.Date = &d
	}
	return in
}

func (w *world) eventInput(tb testing.TB, cats, tags, venues, orgs []uint64) *storage.EventInput {
	in := &storage.EventInput{PostInput: w.postInput(words(w.rng, 1+w.rng.IntN(4)))}
	in.Excerpt = ptr(words(w.rng, w.rng.IntN(3)))
	zones := []string{"UTC", "Europe/Paris", "America/New_York", "UTC+5", "Asia/Tokyo", "UTC-11"}
	in.Timezone = &zones[w.rng.IntN(len(zones))]
	start := testNow.AddDate(0, 0, w.rng.IntN(900)-60).Add(time.Duration(w.rng.IntN(48)) * 30 * time.Minute)
	expr := func(t0 time.Time) *datetime.Expr {
		e, err := datetime.Parse(t0.Format(datetime.DB))
		if err != nil {
			tb.Fatal(err)
		}
		return &e
	}
	in.Start, in.End = expr(start), expr(start.Add(2*time.Hour))
	in.Featured = ptr(w.rng.IntN(5) == 0)
	in.HideFromListings = ptr(w.rng.IntN(15) == 0)
	pick := func(from []uint64, n int) *[]string {
		var out []string
		for range n {
			out = append(out, utoa(from[w.rng.IntN(len(from))]))
		}
		return &out
	}
	in.Categories, in.Tags = pick(cats, w.rng.IntN(3)), pick(tags, w.rng.IntN(3))
	if w.rng.IntN(4) > 0 {
		in.Venue = &storage.VenueRef{ID: venues[w.rng.IntN(len(venues))]}
	}
	var refs []storage.OrganizerRef
	for range w.rng.IntN(3) {
		refs = append(refs, storage.OrganizerRef{ID: orgs[w.rng.IntN(len(orgs))]})
	}
	in.Organizers = &refs
	return in
}

// mutate changes or trashes a random event.
func (w *world) mutate(t *testing.T) {
	ctx := context.Background()
	page, err := w.db.Scan(ctx, storage.TypeEvent, 0, 1<<20)
	if err != nil || len(page.Events) == 0 {
		return
	}
	e := page.Events[w.rng.IntN(len(page.Events))]
	admin := w.users[0]
	if e.Status == storage.StatusTrash {
		return
	}
	if w.rng.IntN(3) == 0 {
		if _, err := w.db.TrashEvent(ctx, admin, e.ID); err != nil {
			t.Fatal(err)
		}
		return
	}
	in := &storage.EventInput{PostInput: storage.PostInput{Title: ptr(words(w.rng, 2))}, Featured: ptr(!e.Featured)}
	if _, err := w.db.UpdateEvent(ctx, admin, e.ID, in); err != nil {
		t.Fatal(err)
	}
}

// moveVenue gives one of the venues of a random language a new position, which its events' rows take.
func (w *world) moveVenue(t *testing.T) {
	venues := w.to.venues[langs[w.rng.IntN(len(langs))]]
	in := &storage.VenueInput{Geo: &storage.Geo{Lat: 48 + w.rng.Float64()*4, Lng: 2 + w.rng.Float64()*4}}
	if _, err := w.db.UpdateVenue(context.Background(), w.users[0], venues[w.rng.IntN(len(venues))], in); err != nil {
		t.Fatal(err)
	}
}
