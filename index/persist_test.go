package index

import (
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/calendard/calendard/storage"
)

// openLogged opens the index in dir over store, and returns the log lines of the start-up.
func openLogged(t *testing.T, dir string, store Store) (*Index, *observer.ObservedLogs) {
	t.Helper()
	core, logs := observer.New(zapcore.InfoLevel)
	ix, err := Open(context.Background(), dir, store, Options{Logger: zap.New(core)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	return ix, logs
}

// scanningStore counts the pages of venues and organizers a full scan reads, which a start from saved
// projections never reads (weighing a replay, it may read a page of events).
type scanningStore struct {
	Store
	pages *int
}

func (s scanningStore) Scan(ctx context.Context, t storage.PostType, after uint64, limit int) (*storage.Records, error) {
	if limit > 0 && t != storage.TypeEvent {
		*s.pages++
	}
	return s.Store.Scan(ctx, t, after, limit)
}

// sameProjections fails the test where a language's projection in got differs from want's.
func sameProjections(t *testing.T, got, want *Index) {
	t.Helper()
	for code, l := range want.langs {
		if diff := diffProjections(got.langs[code].proj, l.proj); diff != "" {
			t.Errorf("projection %s differs from the one built by a scan (-scan +loaded):\n%s", code, diff)
		}
	}
}

// changeEverything writes what moves every part of a projection: events created in each language,
// updated and trashed, a venue moved (its events' positions) and one trashed. newWorld may have
// trashed each language's first venue; the second is trashed here, and new events link the others.
func (w *world) changeEverything(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	for _, l := range langs {
		in := w.eventInput(t, w.to.cats, w.to.tags, w.to.venues[l][2:], w.to.orgs[l])
		if _, err := w.db.CreateEvent(ctx, w.users[0], l, in); err != nil {
			t.Fatal(err)
		}
	}
	for range 10 {
		w.mutate(t)
	}
	if _, err := w.db.UpdateVenue(ctx, w.users[0], w.to.venues["en"][2], &storage.VenueInput{Geo: &storage.Geo{Lat: 51.5, Lng: -0.1}}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.db.TrashVenue(ctx, w.users[0], w.to.venues["fr"][1]); err != nil {
		t.Fatal(err)
	}
}

// TestSavedProjectionsEqualScan: a start that reads the projections Checkpoint saved, and replays the
// change log written after them, holds exactly what a start that scans the store builds, and answers
// as the store does; it scans nothing. Projections saved before the Bleve indexes' checkpoints (the
// files of an earlier Checkpoint) are replayed from their own position.
func TestSavedProjectionsEqualScan(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name string
		// after runs once the projections are saved; it may return files to put back before the start.
		after func(t *testing.T, w *world, dir string) map[string][]byte
	}{
		{"at the checkpoint", func(*testing.T, *world, string) map[string][]byte { return nil }},
		{"changes after the checkpoint", func(t *testing.T, w *world, _ string) map[string][]byte {
			w.changeEverything(t)
			return nil
		}},
		{"indexes checkpointed after the projections", func(t *testing.T, w *world, dir string) map[string][]byte {
			files := map[string][]byte{}
			for _, code := range storage.Langs {
				b, err := os.ReadFile(projectionPath(dir, code))
				if err != nil {
					t.Fatal(err)
				}
				files[projectionPath(dir, code)] = b
			}
			w.changeEverything(t)
			syncAll(t, w.ix)
			if _, err := w.ix.Checkpoint(ctx); err != nil {
				t.Fatal(err)
			}
			return files
		}},
	}
	for _, tc := range tests {
		for seed := range uint64(*seeds) {
			t.Run(fmt.Sprint(tc.name, "/seed", seed), func(t *testing.T) {
				w := newWorld(t, seed, 60)
				dir := filepath.Join(t.TempDir(), "index")
				w.reopenWithin(t, dir)
				if _, err := w.ix.Checkpoint(ctx); err != nil {
					t.Fatal(err)
				}
				restore := tc.after(t, w, dir)
				w.ix.Close()
				for path, b := range restore {
					if err := os.WriteFile(path, b, 0o600); err != nil {
						t.Fatal(err)
					}
				}
				pages := 0
				ix, logs := openLogged(t, dir, scanningStore{Store: w.db, pages: &pages})
				w.ix = ix
				if pages != 0 || logs.FilterMessageSnippet("scanning the store").Len() != 0 {
					t.Fatalf("the start read %d pages of a scan (%v), want the saved projections", pages, logs.All())
				}
				scanned := openIndex(t, filepath.Join(t.TempDir(), "index"), w.db)
				sameProjections(t, ix, scanned)
				scanned.Close()
				sameAnswers(t, w)
				if n, err := ix.Check(ctx); err != nil || n != 0 {
					t.Errorf("Check = %d, %v; want 0, nil", n, err)
				}
			})
		}
	}
}

// TestSavedProjectionsRoundTrip: what encode writes, decodeProjection reads back as it was, with its
// position.
func TestSavedProjectionsRoundTrip(t *testing.T) {
	w := newWorld(t, 4, 80)
	for code, l := range w.ix.langs {
		got, at, err := decodeProjection(l.proj.encode(nil, code, 1234), code)
		if err != nil || at != 1234 {
			t.Fatalf("%s: decode = %d, %v; want 1234, nil", code, at, err)
		}
		if diff := diffProjections(got, l.proj); diff != "" {
			t.Errorf("%s: decoded projection differs (-saved +decoded):\n%s", code, diff)
		}
		checkOffsets(t, got)
	}
}

// TestSavedProjectionWithoutKeys: a projection whose keys are not built saves none, and reads back
// with them built from its rows.
func TestSavedProjectionWithoutKeys(t *testing.T) {
	want := map[uint64]eventPut{}
	p := newProjection()
	for i, start := range []int64{10, 20, 20, 35} {
		put := eventPut{row(uint64(i+1), start, uint64(100+i%2)), eventLinks{orgs: []uint64{200}, terms: []uint64{300, uint64(301 + i)}}}
		put.row.hasGeo, put.row.lat = true, float64(i%2)
		p.appendLoaded(put.row, put.links)
		want[put.row.id] = put
	}
	b := p.encode(nil, "en", 9)
	got, _, err := decodeProjection(b, "en")
	if err != nil {
		t.Fatal(err)
	}
	if diff := diffProjections(got, built(want)); diff != "" {
		t.Errorf("decoded projection differs from the rows built (-built +decoded):\n%s", diff)
	}
	if p.sort(); len(p.encode(nil, "en", 9)) <= len(b) {
		t.Errorf("a projection with its keys built saved %d bytes, no more than without", len(p.encode(nil, "en", 9)))
	}
}

// header is the start of a saved projection as encode writes it, for tests that forge one.
type header struct {
	format        uint64
	mapping, lang string
	at            uint64
}

// reseal replaces the header of the saved projection b and computes its checksum again: a file that
// is whole and well-formed, but says what h says.
func reseal(t *testing.T, b []byte, h func(*header)) []byte {
	t.Helper()
	d := decoder{b: b[len(projectionMagic) : len(b)-4]}
	old := header{d.uvarint(), d.string(), d.string(), d.u64()}
	if d.err != nil {
		t.Fatal(d.err)
	}
	h(&old)
	out := binary.AppendUvarint(append([]byte(nil), projectionMagic...), old.format)
	out = appendString(appendString(out, old.mapping), old.lang)
	out = append(binary.LittleEndian.AppendUint64(out, old.at), d.b...)
	return binary.LittleEndian.AppendUint32(out, crc32.Checksum(out, crcTable))
}

// TestSavedProjectionNeverTrusted: a saved projection that is missing, corrupt, of another format,
// mapping version or language, or saved at a position the change log cannot replay from, is detected:
// the start scans the store, and its projections and answers are those of the store.
func TestSavedProjectionNeverTrusted(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name string
		// spoil changes the saved projection of "en"; head is the store's change-log head and
		// trimmed the bytes of the file as saved before the change log was trimmed past it.
		spoil   func(t *testing.T, b []byte, head uint64, trimmed []byte) []byte
		wantLog string
	}{
		{"missing", func(*testing.T, []byte, uint64, []byte) []byte { return nil }, "no saved projection: scanning the store"},
		{"a byte flipped", func(_ *testing.T, b []byte, _ uint64, _ []byte) []byte {
			b[len(b)/2] ^= 0x10
			return b
		}, "saved projection unusable: scanning the store"},
		{"truncated", func(_ *testing.T, b []byte, _ uint64, _ []byte) []byte { return b[:len(b)-9] }, "saved projection unusable: scanning the store"},
		{"empty", func(*testing.T, []byte, uint64, []byte) []byte { return []byte{} }, "saved projection unusable: scanning the store"},
		{"an older format", func(t *testing.T, b []byte, _ uint64, _ []byte) []byte {
			return reseal(t, b, func(h *header) { h.format-- })
		}, "saved projection unusable: scanning the store"},
		{"another mapping version", func(t *testing.T, b []byte, _ uint64, _ []byte) []byte {
			return reseal(t, b, func(h *header) { h.mapping += "-old" })
		}, "saved projection unusable: scanning the store"},
		{"another language's", func(t *testing.T, b []byte, _ uint64, _ []byte) []byte {
			return reseal(t, b, func(h *header) { h.lang = "fr" })
		}, "saved projection unusable: scanning the store"},
		{"ahead of the store", func(t *testing.T, b []byte, head uint64, _ []byte) []byte {
			return reseal(t, b, func(h *header) { h.at = head + 1 })
		}, "saved projection is ahead of the store: scanning the store"},
		{"behind the trimmed change log", func(_ *testing.T, _ []byte, _ uint64, trimmed []byte) []byte { return trimmed },
			"saved projection is behind the trimmed change log: scanning the store"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t, 6, 60)
			dir := filepath.Join(t.TempDir(), "index")
			w.reopenWithin(t, dir)
			path := projectionPath(dir, "en")
			if _, err := w.ix.Checkpoint(ctx); err != nil {
				t.Fatal(err)
			}
			early, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			// The change log moves on, is checkpointed and trimmed past the early file's position.
			w.changeEverything(t)
			syncAll(t, w.ix)
			upTo, err := w.ix.Checkpoint(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := w.db.TrimChanges(ctx, upTo); err != nil {
				t.Fatal(err)
			}
			w.ix.Close()
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			head, err := w.db.ChangeHead(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if spoiled := tc.spoil(t, b, head, early); spoiled == nil {
				err = os.Remove(path)
			} else {
				err = os.WriteFile(path, spoiled, 0o600)
			}
			if err != nil {
				t.Fatal(err)
			}
			ix, logs := openLogged(t, dir, w.db)
			w.ix = ix
			if logs.FilterMessage(tc.wantLog).FilterField(zap.String("lang", "en")).Len() != 1 {
				t.Errorf("start-up logged %v, want %q for en", logs.All(), tc.wantLog)
			}
			scanned := openIndex(t, filepath.Join(t.TempDir(), "index"), w.db)
			sameProjections(t, ix, scanned)
			scanned.Close()
			sameAnswers(t, w)
		})
	}
}

// TestRebuiltIndexDropsItsProjection: a Bleve index rebuilt at start-up takes its saved projection
// with it, so no projection outlives the index it was checkpointed with.
func TestRebuiltIndexDropsItsProjection(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t, 2, 40)
	dir := filepath.Join(t.TempDir(), "index")
	w.reopenWithin(t, dir)
	if _, err := w.ix.Checkpoint(ctx); err != nil {
		t.Fatal(err)
	}
	w.ix.Close()
	if err := os.RemoveAll(filepath.Join(dir, "de.bleve")); err != nil {
		t.Fatal(err)
	}
	ix, logs := openLogged(t, dir, w.db)
	w.ix = ix
	if _, err := os.Stat(projectionPath(dir, "de")); !os.IsNotExist(err) {
		t.Errorf("de's projection after its index was rebuilt: %v, want it removed", err)
	}
	if logs.FilterMessage("no saved projection: scanning the store").Len() != 0 {
		t.Errorf("a start with a fresh index looked for saved projections: %v", logs.All())
	}
	sameAnswers(t, w)
}

// projectionLayouts pins, per projectionFormat, the fields of what a saved projection holds. A change
// to a row's fields fails TestProjectionFormatPinned until the format is bumped and its layout added
// here, so that no file of the old layout is read as the new one.
var projectionLayouts = map[int]string{
	1: layout1,
	// Format 2 saves the lists of keys and the sets of linked events after the rows (appendKeys).
	2: layout1,
	// Format 3 flags the occurrences that share their parent's text, and saves their sets.
	3: layout3,
	// Format 4 hides a series' parent whose first day an EXDATE takes out (storage.Event.FirstExcluded).
	4: layout3,
	// Format 5 keeps each event's modified stamp with its links (orderby=modified).
	5: layout5,
	// Format 6 saves the rows as fixed-width numbers, and the events' refs in the order of their
	// table (appendRefs), with their spans: from it the refs' fields are pinned too.
	6: layout6,
	// Format 7 saves the rows, the table of refs, the links and the lists of keys as they lie in memory,
	// which the pinned fields of a row and a ref lay out.
	7: layout6,
}

// layout6 pins the refs' fields.
const layout6 = layout5 + " eventRef{id uint64, startLocal int64, linkSpan index.linkSpan}" +
	" linkSpan{parent uint64, off uint32, orgs uint32, terms uint32, modified uint32}"

const layout1 = "eventRow{id uint64, author uint64, venue uint64, date int64, startUTC int64, startLocal int64, lat float64, lng float64, " +
	"status index.state, trashed index.state, hidden bool, featured bool, hasGeo bool} " +
	"eventLinks{orgs []uint64, terms []uint64, parent uint64} " +
	"placeRow{id uint64, author uint64, status storage.Status, trashed storage.Status, date int64}"

// layout5 adds the links' modified stamp.
const layout5 = "eventRow{id uint64, author uint64, venue uint64, date int64, startUTC int64, startLocal int64, lat float64, lng float64, " +
	"status index.state, trashed index.state, hidden bool, featured bool, hasGeo bool, sharesText bool} " +
	"eventLinks{orgs []uint64, terms []uint64, parent uint64, modified int64} " +
	"placeRow{id uint64, author uint64, status storage.Status, trashed storage.Status, date int64}"

// layout3 adds sharesText, saved as a flag.
const layout3 = "eventRow{id uint64, author uint64, venue uint64, date int64, startUTC int64, startLocal int64, lat float64, lng float64, " +
	"status index.state, trashed index.state, hidden bool, featured bool, hasGeo bool, sharesText bool} " +
	"eventLinks{orgs []uint64, terms []uint64, parent uint64} " +
	"placeRow{id uint64, author uint64, status storage.Status, trashed storage.Status, date int64}"

func TestProjectionFormatPinned(t *testing.T) {
	var layout []string
	for _, v := range []any{eventRow{}, eventLinks{}, placeRow{}, eventRef{}, linkSpan{}} {
		rt := reflect.TypeOf(v)
		var fields []string
		for i := range rt.NumField() {
			fields = append(fields, rt.Field(i).Name+" "+rt.Field(i).Type.String())
		}
		layout = append(layout, rt.Name()+"{"+strings.Join(fields, ", ")+"}")
	}
	if got := strings.Join(layout, " "); got != projectionLayouts[projectionFormat] {
		t.Errorf("the rows a projection saves are now\n\t%s\nnot the layout pinned for format %d: bump projectionFormat and pin this layout under it",
			got, projectionFormat)
	}
}

// FuzzDecodeProjection: no file, however damaged, makes decodeProjection panic or return a projection
// that differs from what its bytes say when encoded again. The fuzzer's bytes are a file without its
// checksum, which the target appends, so that its changes reach the checks after the checksum's.
func FuzzDecodeProjection(f *testing.F) {
	p := newProjection()
	for i, start := range []int64{10, 20, 20, 35} {
		r := row(uint64(i+1), start, uint64(100+i%2))
		r.hasGeo, r.lat, r.lng = i%2 == 0, 52.37, 4.89
		p.events = append(p.events, r)
		p.link(&r, eventLinks{orgs: []uint64{200}, terms: []uint64{300, uint64(301 + i)}, parent: uint64(i % 2 * 7)})
	}
	p.venues[100] = &placeRow{id: 100, author: 1, status: storage.StatusPublish, date: 1700000000}
	p.orgs[200] = &placeRow{id: 200, author: 2, status: storage.StatusTrash, trashed: storage.StatusDraft}
	good := p.encode(nil, "en", 42)
	p.keysReady = false
	for _, b := range [][]byte{good, good[:len(good)/2], p.encode(nil, "en", 42), newProjection().encode(nil, "en", 0)} {
		f.Add(b[:len(b)-4])
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		b := binary.LittleEndian.AppendUint32(slices.Clip(body), crc32.Checksum(body, crcTable))
		got, at, err := decodeProjection(b, "en")
		if err != nil {
			return
		}
		if again, _, err := decodeProjection(got.encode(nil, "en", at), "en"); err != nil || diffProjections(again, got) != "" {
			t.Errorf("a decoded projection does not survive encoding again: %v", err)
		}
	})
}

// TestDecodeRejectsForgedFiles: a file whose checksum holds but whose parts contradict each other is
// rejected, whatever part says what: each case changes a saved projection of rows 1, 2, 3, 4 and
// seals it again. Rows 3 and 4 have no terms and no parent: what their refs' flags say, and which of
// their equal links they name, changes no list of keys.
func TestDecodeRejectsForgedFiles(t *testing.T) {
	p := newProjection()
	for i, start := range []int64{10, 20, 30, 40} {
		r := row(uint64(i+1), start, 100)
		r.hasGeo, r.lat, r.lng = true, 52.37, 4.89
		p.events = append(p.events, r)
		l := eventLinks{orgs: []uint64{200}}
		if i < 2 {
			l.terms, l.parent = []uint64{300 + uint64(i)}, 7
		}
		p.link(&r, l)
	}
	// refOf is the bytes of event id's ref, and its flags.
	refOf := func(f *savedParts, id uint64) ([]byte, *byte) {
		for i, r := range f.refs {
			if binary.LittleEndian.Uint64(r) == id {
				return r, f.flags[i]
			}
		}
		t.Fatalf("no ref of event %d", id)
		return nil, nil
	}
	tests := []struct {
		name string
		// forge changes the parts of the file; nil leaves it as saved.
		forge func(f *savedParts)
	}{
		{"as saved", nil},
		{"an event twice, at two starts", func(f *savedParts) { binary.LittleEndian.PutUint64(f.rows[2], 1) }},
		{"rows out of order", func(f *savedParts) { binary.LittleEndian.PutUint64(f.rows[2][40:], 0) }},
		{"an unknown status", func(f *savedParts) { f.rows[1][rowStatusAt] = 200 }},
		{"a bool neither true nor false", func(f *savedParts) { f.rows[1][rowBoolsAt[2]] = 2 }},
		{"a position that is not a number", func(f *savedParts) {
			binary.LittleEndian.PutUint64(f.rows[1][56:], math.Float64bits(math.NaN()))
		}},
		{"padding not zero", func(f *savedParts) { f.pad[0] = 1 }},
		{"a ref of an event without a row", func(f *savedParts) { binary.LittleEndian.PutUint64(f.refs[1], 5) }},
		{"a ref at another start", func(f *savedParts) { binary.LittleEndian.PutUint64(f.refs[1][8:], 1) }},
		{"refs out of order", func(f *savedParts) {
			a, b := slices.Clone(f.refs[0]), slices.Clone(f.refs[1])
			copy(f.refs[0], b)
			copy(f.refs[1], a)
		}},
		{"a ref out of its place", func(f *savedParts) {
			i := f.used[len(f.used)-1]
			copy(f.slots[i+1], f.slots[i])
			clear(f.slots[i])
			f.slotFlags[i+1], f.slotFlags[i] = f.slotFlags[i], 0
		}},
		{"a ref for ID 0 without the table holding it", func(f *savedParts) { binary.LittleEndian.PutUint64(f.slots[0], 9) }},
		{"links past the end", func(f *savedParts) { binary.LittleEndian.PutUint32(f.refs[2][refOffAt+4:], 2) }},
		{"links out of order", func(f *savedParts) {
			three, _ := refOf(f, 3)
			four, _ := refOf(f, 4)
			copy(four[refOffAt:refOffAt+4], three[refOffAt:])
		}},
		{"links beyond the end", func(f *savedParts) { binary.LittleEndian.PutUint32(f.refs[len(f.refs)-1][refOffAt:], 1<<20) }},
		{"an even multiplier", func(f *savedParts) { f.mult[0] &^= 1 }},
		{"a table of refs without homes", func(f *savedParts) { f.layOut(binary.LittleEndian.Uint64(f.mult), 0) }},
		{"refs out of order in one run", func(f *savedParts) {
			// Hashed by 1, IDs 1 to 4 share the first home.
			f.layOut(1, f.homesN)
			a, b := slices.Clone(f.slots[1]), slices.Clone(f.slots[2])
			copy(f.slots[1], b)
			copy(f.slots[2], a)
			f.slotFlags[1], f.slotFlags[2] = f.slotFlags[2], f.slotFlags[1]
			f.relink()
		}},
		{"a row listed, its ref not", func(f *savedParts) {
			_, flags := refOf(f, 3)
			*flags &^= refListed
		}},
		{"a ref sharing its parent's text, its row not", func(f *savedParts) {
			_, flags := refOf(f, 3)
			*flags |= refSharesText
		}},
		{"unknown flags", func(f *savedParts) { *f.flags[1] |= 0x80 }},
		{"a term listing a row it does not link", func(f *savedParts) {
			binary.LittleEndian.PutUint64(f.termListed[0][8:], binary.LittleEndian.Uint64(f.termListed[0][8:])%3+1)
		}},
		{"a term listing a row at another start", func(f *savedParts) {
			binary.LittleEndian.PutUint64(f.termListed[0], binary.LittleEndian.Uint64(f.termListed[0])+1)
		}},
		{"a set of linked events with another event", func(f *savedParts) {
			last := f.orgEvents[len(f.orgEvents)-1]
			binary.LittleEndian.PutUint64(last, binary.LittleEndian.Uint64(last)+6)
		}},
		{"a set of linked events out of order", func(f *savedParts) {
			a, b := slices.Clone(f.orgEvents[0]), slices.Clone(f.orgEvents[1])
			copy(f.orgEvents[0], b)
			copy(f.orgEvents[1], a)
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := alignedCopy(p.encode(nil, "en", 7))
			if tc.forge != nil {
				tc.forge(partsOf(t, b))
				binary.LittleEndian.PutUint32(b[len(b)-4:], crc32.Checksum(b[:len(b)-4], crcTable))
			}
			_, _, err := decodeProjection(b, "en")
			if tc.forge == nil && err != nil {
				t.Errorf("decoding the file as saved: %v", err)
			}
			if tc.forge != nil && !errors.Is(err, errProjection) {
				t.Errorf("decoding the forged file: %v, want errProjection", err)
			}
		})
	}
}

// TestDecodeRejectsCrowdedRefs: a table of refs whose multiplier crowds the refs into one long run,
// which every lookup would walk, is rejected, as one hashed by its own multiplier is read.
// A file whose last lists hold more entries than bytes follow them reads back: a list's size counts
// entries saved before the lists' keys, and was once checked against the bytes left instead.
func TestDecodeLastListsLongerThanTheirBytes(t *testing.T) {
	p := newProjection()
	for id := range uint64(40) {
		r := row(id+2, int64(id), 0)
		r.sharesText = true // every one in the series' last set: the parent's texts (textEvents)
		p.appendLoaded(r, eventLinks{parent: 1})
	}
	p.sort()
	got, _, err := decodeProjection(alignedCopy(p.encode(nil, "en", 7)), "en")
	if err != nil {
		t.Fatal(err)
	}
	if len(got.events) != 40 || len(got.textEvents[1]) != 40 {
		t.Errorf("read back %d events, %d sharing the parent's text; want 40 and 40", len(got.events), len(got.textEvents[1]))
	}
}

func TestDecodeRejectsCrowdedRefs(t *testing.T) {
	saved := benchProjection(2*refsMaxRun).encode(nil, "en", 7)
	for _, tc := range []struct {
		name string
		mult uint64 // 0 leaves the table as saved
	}{{"as saved", 0}, {"hashed by 1", 1}} {
		t.Run(tc.name, func(t *testing.T) {
			b := alignedCopy(saved)
			if tc.mult != 0 {
				f := partsOf(t, b)
				f.layOut(tc.mult, f.homesN)
				binary.LittleEndian.PutUint32(b[len(b)-4:], crc32.Checksum(b[:len(b)-4], crcTable))
			}
			if _, _, err := decodeProjection(b, "en"); (err != nil) != (tc.mult != 0) || err != nil && !errors.Is(err, errProjection) {
				t.Errorf("decode: %v", err)
			}
		})
	}
}

// savedParts are the bytes of the parts of a saved projection that forged files change.
type savedParts struct {
	t     *testing.T
	rows  [][]byte // each row
	slots [][]byte // each slot of the table of refs, used or not
	used  []int    // the slots that hold a ref, in order
	refs  [][]byte // the slots of used
	flags []*byte  // the flags of each ref of refs
	// slotFlags are the flags of each slot.
	slotFlags []byte
	mult      []byte
	homes     []byte // how many homes the table has, as a varint (homesN)
	homesN    int
	links     []byte // the IDs the refs link to
	pad       []byte // the first padding that is not empty
	// The entries of the lists of the terms' listed keys, and of the organizers' sets.
	termListed, orgEvents [][]byte
}

// layOut lays the refs out again where a table of homes homes hashed by mult holds them: in the
// order of their hashes, each at its home or right after the one before; and their links in that order.
func (f *savedParts) layOut(mult uint64, homes int) {
	type ref struct {
		b     []byte
		flags byte
	}
	refs := make([]ref, len(f.refs))
	for i, r := range f.refs {
		refs[i] = ref{slices.Clone(r), *f.flags[i]}
	}
	table := eventRefs{homes: homes, mult: mult}
	hash := func(r ref) uint64 { return table.hash(binary.LittleEndian.Uint64(r.b)) }
	slices.SortFunc(refs, func(a, b ref) int { return cmp.Compare(hash(a), hash(b)) })
	for i := range f.slots {
		clear(f.slots[i])
		f.slotFlags[i] = 0
	}
	prev := 0
	for _, r := range refs {
		i := max(table.home(hash(r)), prev+1)
		copy(f.slots[i], r.b)
		f.slotFlags[i], prev = r.flags, i
	}
	binary.LittleEndian.PutUint64(f.mult, mult)
	if homes != f.homesN {
		if homes >= 0x80 || f.homesN >= 0x80 {
			f.t.Fatal("a table of refs with more homes than a byte says")
		}
		f.homes[0] = byte(homes)
	}
	f.relink()
}

// relink lays the links out again in the order of the slots that hold their refs.
func (f *savedParts) relink() {
	old := slices.Clone(f.links)
	at := uint32(0)
	for i, s := range f.slots {
		if i == 0 || binary.LittleEndian.Uint64(s) == 0 {
			continue
		}
		off := binary.LittleEndian.Uint32(s[refOffAt:])
		n := binary.LittleEndian.Uint32(s[refOffAt+4:]) + binary.LittleEndian.Uint32(s[refOffAt+8:])
		copy(f.links[8*at:], old[8*off:8*(off+n)])
		binary.LittleEndian.PutUint32(s[refOffAt:], at)
		at += n
	}
}

// partsOf finds the parts of the saved projection b, at an address that is a multiple of 8.
func partsOf(t *testing.T, b []byte) *savedParts {
	t.Helper()
	f := &savedParts{t: t}
	d := decoder{b: b[len(projectionMagic) : len(b)-4]}
	split := func(b []byte, size int) (out [][]byte) {
		for i := 0; i+size <= len(b); i += size {
			out = append(out, b[i:i+size:i+size])
		}
		return out
	}
	aligned := func(n, size int) []byte {
		if pad := -int(uintptr(unsafe.Pointer(unsafe.SliceData(d.b)))) & 7; f.pad == nil && pad > 0 {
			f.pad = d.b[:pad]
		}
		return d.aligned(n, size)
	}
	lists := func(size int, key func()) [][]byte {
		entries := split(aligned(d.count(), size), size)
		for range d.count() {
			key()
			d.count()
		}
		return entries
	}
	uvarint := func() { d.uvarint() }
	_, _, _, _ = d.uvarint(), d.string(), d.string(), d.u64()
	f.rows = split(aligned(d.count(), eventRowSize), eventRowSize)
	f.links = aligned(d.count(), 8)
	size := d.count()
	f.homes = d.b[:1]
	f.homesN = d.count()
	hasZero := d.byte()
	f.mult = d.take(8)
	f.slots = split(aligned(size, refSize), refSize)
	flags := d.take(size)
	f.slotFlags = flags
	for i, s := range f.slots {
		if i == 0 && hasZero == 1 || i > 0 && binary.LittleEndian.Uint64(s) != 0 {
			f.used = append(f.used, i)
			f.refs = append(f.refs, s)
			f.flags = append(f.flags, &flags[i])
		}
	}
	if d.byte() != 1 {
		t.Fatal("a saved projection without its keys")
	}
	f.termListed = lists(16, uvarint)
	lists(16, uvarint)
	lists(16, func() { d.point() })
	lists(16, func() { d.cell() })
	lists(8, uvarint)
	f.orgEvents = lists(8, uvarint)
	if d.err != nil || f.pad == nil || len(f.termListed) == 0 || len(f.orgEvents) < 2 {
		t.Fatalf("parts of a saved projection: %v", d.err)
	}
	return f
}

// TestCheckpointSavesOnlyChanges: a checkpoint with nothing applied since the projections were saved,
// or read at start-up, leaves their files alone; one after a change writes them again.
func TestCheckpointSavesOnlyChanges(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t, 3, 40)
	dir := filepath.Join(t.TempDir(), "index")
	w.reopenWithin(t, dir)
	t.Cleanup(func() { w.ix.Close() })
	path := projectionPath(dir, "en")
	stat := func() os.FileInfo {
		t.Helper()
		if _, err := w.ix.Checkpoint(ctx); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		return fi
	}
	saved := stat()
	if !os.SameFile(saved, stat()) {
		t.Error("a checkpoint with nothing new wrote the projection again")
	}
	w.reopenWithin(t, dir)
	if !os.SameFile(saved, stat()) {
		t.Error("the first checkpoint after a start from the saved projections wrote them again")
	}
	w.changeEverything(t)
	syncAll(t, w.ix)
	if os.SameFile(saved, stat()) {
		t.Error("a checkpoint after changes left the projection as it was")
	}
}

// TestLoadedProjectionLeavesItsFile: a start holds its projections where their files are mapped, and
// the changes it applies afterwards, to rows, refs, links and lists alike, reach its projections and
// answers but never the files, which read back as they were saved.
func TestLoadedProjectionLeavesItsFile(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t, 3, 60)
	dir := filepath.Join(t.TempDir(), "index")
	w.reopenWithin(t, dir)
	if _, err := w.ix.Checkpoint(ctx); err != nil {
		t.Fatal(err)
	}
	saved := map[storage.Lang][]byte{}
	for _, code := range storage.Langs {
		b, err := os.ReadFile(projectionPath(dir, code))
		if err != nil {
			t.Fatal(err)
		}
		saved[code] = b
	}
	w.reopenWithin(t, dir)
	w.changeEverything(t)
	syncAll(t, w.ix)
	for code, want := range saved {
		if got, err := os.ReadFile(projectionPath(dir, code)); err != nil || !slices.Equal(got, want) {
			t.Errorf("%s: the saved projection changed with the live one (%v)", code, err)
		}
	}
	scanned := openIndex(t, filepath.Join(t.TempDir(), "index"), w.db)
	sameProjections(t, w.ix, scanned)
	scanned.Close()
	sameAnswers(t, w)
}

// TestMappedProjectionsAreCopies: two projections decoded from one file, each from its own mapping,
// are as many copies: changing one, in place or by moving its rows, changes neither the other, which
// may still be read, nor the file.
func TestMappedProjectionsAreCopies(t *testing.T) {
	p := benchProjection(500)
	path := filepath.Join(t.TempDir(), "en.projection")
	saved := p.encode(nil, "en", 1)
	if err := os.WriteFile(path, saved, 0o600); err != nil {
		t.Fatal(err)
	}
	load := func() *projection {
		b, _, err := mapFile(path)
		if err != nil {
			t.Fatal(err)
		}
		got, _, err := decodeProjection(b, "en")
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	first, second := load(), load()
	for i := range 10 {
		r, l := first.events[i*7], first.linksOf(first.events[i*7].id)
		r.featured = !r.featured
		l.terms = append(slices.Clip(l.terms), 1000+uint64(i))
		first.putEvent(r, l)
	}
	first.removeEvent(first.events[3].id)
	if diffProjections(first, p) == "" {
		t.Fatal("the changes left the first projection as it was")
	}
	if diff := diffProjections(second, p); diff != "" {
		t.Errorf("changing one projection changed another from the same file (-saved +second):\n%s", diff)
	}
	if got, err := os.ReadFile(path); err != nil || !slices.Equal(got, saved) {
		t.Errorf("changing a mapped projection changed its file (%v)", err)
	}
}
