package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
	"unicode"
	"unicode/utf8"

	"go.uber.org/zap"

	"github.com/calendard/calendard/storage"
	"github.com/calendard/calendard/storage/datetime"
	"github.com/calendard/calendard/storage/slug"
	"github.com/calendard/calendard/storage/task"
)

// Sizes of a generated calendar.
const (
	// seedChunk events go into one transaction: one fsync per chunk instead of one per event, while the
	// transaction's dirty pages (and the change-log entries it collects) stay bounded. A store that
	// bounds its transactions (etcd, in cluster mode) gets them in smaller ones (bulkWriter).
	seedChunk          = 2000
	eventsPerVenue     = 20
	eventsPerOrganizer = 30
	// minPlaces venues and organizers exist per language at least, so that filters have a choice even
	// in a small calendar.
	minPlaces = 5
	seedTags  = 200
	// The start dates run from a month ago to two years ahead of the store's clock.
	pastDays   = 30
	futureDays = 730
)

// Shares of events with a property, in per mille: what a real calendar roughly looks like.
const (
	permilleFeatured = 100
	permilleHidden   = 30
	permilleDraft    = 50
	permillePrivate  = 20
	permilleSticky   = 10
	permilleAllDay   = 80
	permilleCost     = 600
	permilleWebsite  = 200
)

// seed implements "calendard seed": it writes a generated calendar into the store for demos and
// benchmarks. The same --seed and the same store clock give the same records.
func seed(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("seed", flag.ContinueOnError)
	fs.SetOutput(stderr)
	events := fs.Int("events", 1000, "number of events to create")
	seedValue := fs.Uint64("seed", 1, "random seed; the same seed and store clock give the same data")
	dataDir := fs.String("data-dir", envOr(getenv, "CALENDAR_DATA_DIR", "./data"), "directory holding all state (CALENDAR_DATA_DIR)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if *events < 1 {
		return errors.New("events must be at least 1")
	}
	cfg, err := parseConfig("seed", []string{"--data-dir", *dataDir}, getenv, stderr)
	if err != nil {
		return err
	}
	db, err := openStore(cfg, zap.NewNop())
	if err != nil {
		return err
	}
	began := time.Now()
	var done atomic.Int64
	var sum seedSummary
	err = showProgress(stderr, func() task.Progress {
		return task.Progress{Phase: "seeding events", Done: uint64(done.Load()), Total: uint64(*events), Started: began}
	}, func() (err error) {
		sum, err = seedStore(ctx, &app{cfg: cfg, log: zap.NewNop(), db: db}, *events, *seedValue, stderr, done.Add)
		return err
	})
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	// The index is derived data. Rebuilding it from the store in bulk at the next start is much faster
	// than replaying a change log this long one entry at a time.
	if err := os.RemoveAll(filepath.Join(cfg.DataDir, "index")); err != nil {
		return fmt.Errorf("remove the index: %w", err)
	}
	fmt.Fprintf(stdout, "seeded %d events, %d venues, %d organizers, %d categories and %d tags into %s in %s\n",
		sum.events, sum.venues, sum.organizers, sum.categories, sum.tags, cfg.DataDir, time.Since(began).Round(time.Millisecond))
	return nil
}

// seedSummary counts what seedStore created.
type seedSummary struct{ events, venues, organizers, categories, tags int }

// seedStore creates the terms, then per language the venues and organizers, then n events in chunks,
// all as the first administrator (created as serve would if the store has no user yet). created, when
// set, is told how many events each chunk added.
func seedStore(ctx context.Context, a *app, n int, seedValue uint64, stderr io.Writer, created func(int64) int64) (seedSummary, error) {
	var sum seedSummary
	if err := a.bootstrapAdmin(ctx, stderr); err != nil {
		return sum, err
	}
	actor, err := firstAdministrator(ctx, a.db)
	if err != nil {
		return sum, err
	}
	s, err := newSeeder(seedValue, a.db.Now())
	if err != nil {
		return sum, err
	}
	langs := s.languages(n)
	perLang := map[storage.Lang]int{}
	for _, l := range langs {
		perLang[l]++
	}
	// Records are generated before their transaction (the places here, the events chunk by chunk), so
	// that randomness is drawn once and in the same order however many transactions w needs.
	parts := [][]func(*storage.Bulk) error{s.termWrites()}
	for _, l := range storage.Langs {
		parts = append(parts, s.placesOf(l, perLang[l]))
	}
	w := &bulkWriter{db: a.db, a: actor}
	if err := w.write(ctx, parts...); err != nil {
		return sum, err
	}
	s.listTerms()
	for from := 0; from < n; from += seedChunk {
		chunk := langs[from:min(from+seedChunk, n)]
		writes := make([]func(*storage.Bulk) error, len(chunk))
		for i, l := range chunk {
			in, err := s.event(l)
			if err != nil {
				return sum, err
			}
			writes[i] = func(b *storage.Bulk) error {
				if _, err := b.CreateEvent(l, in); err != nil {
					return fmt.Errorf("event in %s: %w", l, err)
				}
				return nil
			}
		}
		if err := w.write(ctx, writes); err != nil {
			return sum, err
		}
		if created != nil {
			created(int64(len(chunk)))
		}
	}
	sum.events, sum.categories, sum.tags = n, len(s.categories), len(s.tags)
	for _, l := range storage.Langs {
		sum.venues += len(s.places[l].venues)
		sum.organizers += len(s.places[l].organizers)
	}
	return sum, nil
}

// bulkWriter writes records in as few transactions as the store takes.
type bulkWriter struct {
	db *storage.DB
	a  storage.Actor
	// most, once the store has refused a transaction as too large, is the most writes a transaction
	// may hold: a longer list is cut to it at once, rather than refused whole again and halved again.
	most int
}

// write runs every write of parts, in order, in one transaction on behalf of w.a. When the store
// answers that this is too large for one transaction (ErrTooLarge: in cluster mode etcd bounds one),
// nothing was written, and each part is written again in transactions of its own, a single part in
// two halves, and so on down to one write per transaction, whose ErrTooLarge is returned. As with any
// Bulk function, a write must give the same result when it runs again: a refused transaction hands
// its IDs back to the store's sequences, so the same writes in the same order get the same IDs.
func (w *bulkWriter) write(ctx context.Context, parts ...[]func(*storage.Bulk) error) error {
	if len(parts) == 1 && w.most > 0 && len(parts[0]) > w.most {
		for rest := parts[0]; len(rest) > 0; {
			n := min(w.most, len(rest))
			if err := w.write(ctx, rest[:n]); err != nil {
				return err
			}
			rest = rest[n:]
		}
		return nil
	}
	err := w.db.Bulk(ctx, w.a, func(b *storage.Bulk) error {
		for _, part := range parts {
			for _, write := range part {
				if err := write(b); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if !errors.Is(err, storage.ErrTooLarge) {
		return err
	}
	if len(parts) == 1 {
		if len(parts[0]) < 2 {
			return err
		}
		w.most = (len(parts[0]) + 1) / 2
		parts = [][]func(*storage.Bulk) error{parts[0][:w.most], parts[0][w.most:]}
	}
	for _, part := range parts {
		if err := w.write(ctx, part); err != nil {
			return err
		}
	}
	return nil
}

func firstAdministrator(ctx context.Context, db *storage.DB) (storage.Actor, error) {
	users, err := db.Users(ctx)
	if err != nil {
		return storage.Actor{}, err
	}
	for _, u := range users {
		if u.Role == storage.RoleAdministrator {
			return storage.Actor{UserID: u.ID, Role: u.Role}, nil
		}
	}
	return storage.Actor{}, errors.New("the store has users but no administrator; create one with calendard user create")
}

// seeder generates the records. All randomness comes from one PCG source consumed in a fixed order,
// and maps are only looked up, never ranged over, so the output depends on the seed and clock alone.
type seeder struct {
	r   *rand.Rand
	now time.Time
	// zones are the loaded locations of every city's zone, by name.
	zones map[string]*time.Location
	// Term IDs are kept as EventInput takes them: decimal strings resolve without a scan.
	categories []string
	// categoryOf maps a category name to its ID.
	categoryOf map[string]string
	tags       []string
	// tagsOf lists the tags an event of a language may carry: its themes first (picked more often),
	// then the tags of every language.
	tagsOf map[storage.Lang][]string
	// tagOf maps a tag name to its ID.
	tagOf  map[string]string
	places map[storage.Lang]*seedPlaces
}

type seedPlaces struct {
	venues     []seedVenue
	organizers []uint64
}

type seedVenue struct {
	id   uint64
	name string
	city *seedCity
}

func newSeeder(seedValue uint64, now time.Time) (*seeder, error) {
	s := &seeder{
		// The second PCG word is fixed so that --seed alone selects the stream.
		r:          rand.New(rand.NewPCG(seedValue, 0x63616c656e646172)),
		now:        now,
		zones:      map[string]*time.Location{},
		categoryOf: map[string]string{},
		tagsOf:     map[storage.Lang][]string{},
		tagOf:      map[string]string{},
		places:     map[storage.Lang]*seedPlaces{},
	}
	for _, l := range storage.Langs {
		for _, c := range vocabs[l].cities {
			z, err := datetime.ParseZone(c.zone)
			if err != nil {
				return nil, err
			}
			s.zones[c.zone] = z.Loc
		}
	}
	return s, nil
}

// languages draws the language of each of n events by langWeights.
func (s *seeder) languages(n int) []storage.Lang {
	total := 0
	for _, w := range langWeights {
		total += w
	}
	out := make([]storage.Lang, n)
	for i := range out {
		x := s.r.IntN(total)
		for j, w := range langWeights {
			if x < w {
				out[i] = storage.Langs[j]
				break
			}
			x -= w
		}
	}
	return out
}

// termWrites returns the writes that create the category tree, then the tags, each recording its
// term's ID in s; a term that already exists (a second seeding of the same store) is reused. A child's
// write reads its parent's ID, recorded by an earlier write. listTerms completes s once they are done.
func (s *seeder) termWrites() []func(*storage.Bulk) error {
	var writes []func(*storage.Bulk) error
	// create appends the write of one term; parent, when not "", names its parent category. A write
	// that runs again (its transaction refused) records the same ID again.
	create := func(tax storage.Taxonomy, name, parent string, ids map[string]string) {
		writes = append(writes, func(b *storage.Bulk) error {
			in := &storage.TermInput{Name: &name}
			if parent != "" {
				id, _ := strconv.ParseUint(s.categoryOf[parent], 10, 64)
				in.Parent = &id
			}
			t, err := b.CreateTerm(tax, in)
			var exists *storage.TermExistsError
			switch {
			case errors.As(err, &exists):
				ids[name] = strconv.FormatUint(exists.ID, 10)
			case err != nil:
				return fmt.Errorf("%s %q: %w", tax, name, err)
			default:
				ids[name] = strconv.FormatUint(t.ID, 10)
			}
			return nil
		})
	}
	for _, c := range categoryTree {
		create(storage.TaxCategory, c.name, "", s.categoryOf)
		for _, child := range c.children {
			create(storage.TaxCategory, child, c.name, s.categoryOf)
		}
	}
	for _, tag := range tagNames() {
		create(storage.TaxTag, tag.name, "", s.tagOf)
	}
	return writes
}

// listTerms lists the terms termWrites created, in their order of creation, and the tags an event of
// each language may carry.
func (s *seeder) listTerms() {
	for _, c := range categoryTree {
		s.categories = append(s.categories, s.categoryOf[c.name])
		for _, child := range c.children {
			s.categories = append(s.categories, s.categoryOf[child])
		}
	}
	var common []string
	for _, tag := range tagNames() {
		id := s.tagOf[tag.name]
		s.tags = append(s.tags, id)
		if tag.lang == "" {
			common = append(common, id)
		} else {
			s.tagsOf[tag.lang] = append(s.tagsOf[tag.lang], id)
		}
	}
	for _, l := range storage.Langs {
		s.tagsOf[l] = append(s.tagsOf[l], common...)
	}
}

// seedTag is a tag name and the language whose theme it is ("" for a tag of every language).
type seedTag struct {
	name string
	lang storage.Lang
}

// tagNames lists seedTags tags: every language's themes in lower case, then extraTags, without two
// names that share a slug (which would only differ by a "-2"); a theme shared by languages (jazz)
// belongs to the first.
func tagNames() []seedTag {
	seen := map[string]bool{}
	var out []seedTag
	add := func(name string, l storage.Lang) {
		key := slug.Normalize(name)
		if len(out) < seedTags && !seen[key] {
			seen[key] = true
			out = append(out, seedTag{name, l})
		}
	}
	for _, l := range storage.Langs {
		for _, t := range vocabs[l].themes {
			add(strings.ToLower(t), l)
		}
	}
	for _, t := range extraTags {
		add(t, "")
	}
	return out
}

// placesOf generates the venues and organizers of language l, sized for its events, and returns the
// writes that create them, each recording its record's ID in s.places[l].
func (s *seeder) placesOf(l storage.Lang, events int) []func(*storage.Bulk) error {
	v := vocabs[l]
	p := &seedPlaces{}
	s.places[l] = p
	used := map[string]bool{}
	var writes []func(*storage.Bulk) error
	for i := range max(minPlaces, (events+eventsPerVenue-1)/eventsPerVenue) {
		c := &v.cities[s.r.IntN(len(v.cities))]
		name := s.placeName(v.venueName, v.venueKinds, v.names, c, i, used)
		lat := round6(c.lat + (s.r.Float64()*2-1)*0.05)
		lng := round6(c.lng + (s.r.Float64()*2-1)*0.08)
		in := &storage.VenueInput{
			PostInput: storage.PostInput{Title: &name},
			Address:   ptrTo(strings.ReplaceAll(pickOne(s.r, v.streets), "{N}", strconv.Itoa(1+s.r.IntN(180)))),
			City:      &c.name,
			Country:   &c.country,
			Zip:       ptrTo(pickOne(s.r, c.zips)),
			Phone:     ptrTo(s.phone(c)),
			Geo:       &storage.Geo{Lat: lat, Lng: lng},
		}
		if s.r.IntN(2) == 0 {
			in.Website = ptrTo("https://" + slug.Normalize(name) + ".example")
		}
		p.venues = append(p.venues, seedVenue{name: name, city: c})
		writes = append(writes, func(b *storage.Bulk) error {
			id, err := b.CreateVenue(l, in)
			if err != nil {
				return fmt.Errorf("venue %q: %w", name, err)
			}
			p.venues[i].id = id
			return nil
		})
	}
	for i := range max(minPlaces, (events+eventsPerOrganizer-1)/eventsPerOrganizer) {
		c := &v.cities[s.r.IntN(len(v.cities))]
		name := s.placeName(v.orgName, v.orgKinds, v.names, c, i, used)
		host := slug.Normalize(name) + ".example"
		in := &storage.OrganizerInput{
			PostInput: storage.PostInput{Title: &name},
			Email:     ptrTo("info@" + host),
			Phone:     ptrTo(s.phone(c)),
			Website:   ptrTo("https://www." + host),
		}
		p.organizers = append(p.organizers, 0)
		writes = append(writes, func(b *storage.Bulk) error {
			id, err := b.CreateOrganizer(l, in)
			if err != nil {
				return fmt.Errorf("organizer %q: %w", name, err)
			}
			p.organizers[i] = id
			return nil
		})
	}
	return writes
}

// placeName makes a name not yet used in this language: the store would return the earlier record for
// a repeated name (docs/API.md "Venue and organizer fields") and the calendar would have fewer places than asked for. A number
// only comes in once the combinations of the vocabulary run short.
func (s *seeder) placeName(tmpl string, kinds, names []string, c *seedCity, i int, used map[string]bool) string {
	var name string
	for range 8 {
		name = strings.NewReplacer("{KIND}", pickOne(s.r, kinds), "{NAME}", pickOne(s.r, names)).Replace(tmpl)
		for _, candidate := range []string{name, name + " " + c.name} {
			if !used[strings.ToLower(candidate)] {
				used[strings.ToLower(candidate)] = true
				return candidate
			}
		}
	}
	name += " " + c.name + " " + strconv.Itoa(i+1)
	used[strings.ToLower(name)] = true
	return name
}

func (s *seeder) phone(c *seedCity) string {
	return fmt.Sprintf("%s %03d %04d", c.phone, s.r.IntN(1000), s.r.IntN(10000))
}

// startHours are the usual start times of events, evenings more often than mornings.
var startHours = []int{10, 11, 14, 15, 16, 18, 19, 19, 20, 20, 20, 21}

var prices = []string{"5", "8", "10", "12", "12.50", "15", "18", "20", "25", "30", "35", "45", "60"}

// event generates one event of language l at one of its venues.
func (s *seeder) event(l storage.Lang) (*storage.EventInput, error) {
	v := vocabs[l]
	p := s.places[l]
	venue := p.venues[skewedIndex(s.r, len(p.venues), 1.5)]
	c := venue.city
	kind, mood := pickOne(s.r, v.kinds), pickOne(s.r, v.moods)
	i := s.r.IntN(len(v.themes))
	j := (i + 1 + s.r.IntN(len(v.themes)-1)) % len(v.themes)
	t1, t2 := v.themes[i], v.themes[j]
	fill := strings.NewReplacer(
		"{K}", upperFirst(kind), "{k}", strings.ToLower(kind),
		"{T2}", upperFirst(t2), "{t2}", strings.ToLower(t2),
		"{T}", upperFirst(t1), "{t}", strings.ToLower(t1),
		"{M}", upperFirst(mood), "{m}", strings.ToLower(mood),
		"{C}", c.name, "{IN}", c.in, "{V}", venue.name,
	)
	title := v.fix(fill.Replace(pickOne(s.r, v.titles)))
	var paragraphs []string
	for _, k := range s.r.Perm(len(v.sentences))[:2+s.r.IntN(3)] {
		paragraphs = append(paragraphs, v.fix(fill.Replace(v.sentences[k])))
	}
	// Two sentences per paragraph, as an editor would write them.
	var desc strings.Builder
	for j, sentence := range paragraphs {
		switch {
		case j == 0:
		case j%2 == 0:
			desc.WriteString("\n\n")
		default:
			desc.WriteString(" ")
		}
		desc.WriteString(sentence)
	}

	start, end, allDay := s.dates(s.zones[c.zone])
	startExpr, err := datetime.Parse(datetime.WallOf(start).String())
	if err != nil {
		return nil, err
	}
	endExpr, err := datetime.Parse(datetime.WallOf(end).String())
	if err != nil {
		return nil, err
	}
	status := storage.StatusPublish
	switch x := s.r.IntN(1000); {
	case x < permilleDraft:
		status = storage.StatusDraft
	case x < permilleDraft+permillePrivate:
		status = storage.StatusPrivate
	}
	in := &storage.EventInput{
		PostInput:        storage.PostInput{Title: &title, Description: ptrTo(desc.String()), Status: &status},
		Timezone:         &c.zone,
		AllDay:           &allDay,
		Start:            &startExpr,
		End:              &endExpr,
		ShowMap:          ptrTo(true),
		ShowMapLink:      ptrTo(true),
		Featured:         ptrTo(s.r.IntN(1000) < permilleFeatured),
		HideFromListings: ptrTo(s.r.IntN(1000) < permilleHidden),
		Sticky:           ptrTo(s.r.IntN(1000) < permilleSticky),
		Venue:            &storage.VenueRef{ID: venue.id},
		Categories:       ptrTo(s.eventCategories(i, j)),
		Tags:             ptrTo(s.eventTags(l, t1)),
	}
	if s.r.IntN(1000) < permilleCost {
		cost := []string{pickOne(s.r, prices)}
		if s.r.IntN(4) == 0 {
			cost = append(cost, pickOne(s.r, prices))
		}
		in.Cost = &cost
	}
	if s.r.IntN(1000) < permilleWebsite {
		in.Website = ptrTo("https://tickets." + slug.Normalize(venue.name) + ".example/" + slug.Normalize(title))
	}
	var orgs []storage.OrganizerRef
	for _, id := range pickDistinct(s.r, p.organizers, []int{0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 3}[s.r.IntN(15)], 1.5) {
		orgs = append(orgs, storage.OrganizerRef{ID: id})
	}
	in.Organizers = &orgs
	return in, nil
}

// eventCategories is the category of the first theme, sometimes with that of the second or another.
func (s *seeder) eventCategories(theme, other int) []string {
	cats := []string{s.categoryOf[themeCategories[theme]]}
	switch x := s.r.IntN(100); {
	case x < 25:
		cats = append(cats, s.categoryOf[themeCategories[other]])
	case x < 35:
		cats = append(cats, pickOne(s.r, s.categories))
	}
	return slices.Compact(cats)
}

// eventTags draws 0 to 4 tags of language l, the first theme's own tag most often among them.
func (s *seeder) eventTags(l storage.Lang, theme string) []string {
	n := []int{0, 1, 1, 2, 2, 2, 3, 3, 4}[s.r.IntN(9)]
	tags := make([]string, 0, n)
	if id, ok := s.tagOf[strings.ToLower(theme)]; ok && n > 0 && s.r.IntN(3) > 0 {
		tags = append(tags, id)
	}
	pool := s.tagsOf[l]
	for len(tags) < n {
		if id := pool[skewedIndex(s.r, len(pool), 2)]; !slices.Contains(tags, id) {
			tags = append(tags, id)
		}
	}
	return tags
}

// dates draws an event's start and end as wall clocks of loc (carried in UTC times, which only serve as
// calendar arithmetic): a day from a month ago to two years ahead, 1 to 6 hours long, or all day for 1
// to 3 days.
func (s *seeder) dates(loc *time.Location) (start, end time.Time, allDay bool) {
	today := s.now.In(loc)
	day := time.Date(today.Year(), today.Month(), today.Day()-pastDays+s.r.IntN(pastDays+futureDays+1), 0, 0, 0, 0, time.UTC)
	if s.r.IntN(1000) < permilleAllDay {
		return day, day.AddDate(0, 0, s.r.IntN(3)), true
	}
	start = day.Add(time.Duration(pickOne(s.r, startHours))*time.Hour + time.Duration(15*s.r.IntN(4))*time.Minute)
	return start, start.Add(time.Duration(2+s.r.IntN(11)) * 30 * time.Minute), false
}

// pickDistinct picks up to n different items, favouring the first ones (popular tags, busy
// organizers) the more skew exceeds 1.
func pickDistinct[T comparable](r *rand.Rand, items []T, n int, skew float64) []T {
	n = min(n, len(items))
	out := make([]T, 0, n)
	for len(out) < n {
		item := items[skewedIndex(r, len(items), skew)]
		if !slices.Contains(out, item) {
			out = append(out, item)
		}
	}
	return out
}

// skewedIndex draws an index below n; with skew 1 all are equally likely, above 1 low ones more so.
func skewedIndex(r *rand.Rand, n int, skew float64) int {
	return min(n-1, int(float64(n)*math.Pow(r.Float64(), skew)))
}

func pickOne[T any](r *rand.Rand, items []T) T { return items[r.IntN(len(items))] }

func ptrTo[T any](v T) *T { return &v }

// round6 keeps coordinates to a tenth of a metre, as a geocoder would give them.
func round6(x float64) float64 { return math.Round(x*1e6) / 1e6 }

func upperFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[n:]
}
