package index

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/calendard/calendard/storage"
)

// eventFilterFields is every field of EventFilter (those of Visibility by their own names), as the
// key path treats it. refuse, when set, gives the field a value keyable must refuse; a field without
// it is honoured by listedPage, and TestKeyableListsEqualScan checks that it is. A field may be both:
// featured=true is honoured, featured=false refused.
var eventFilterFields = []struct {
	name   string
	refuse func(f *EventFilter)
}{
	{"Lang", nil},
	{"Actor", func(f *EventFilter) { f.Actor = storage.Actor{UserID: 5, Role: storage.RoleEditor} }},
	{"Statuses", func(f *EventFilter) { f.Statuses = []storage.Status{storage.StatusPublish} }},
	{"Now", nil},
	{"Start", nil},
	{"End", nil},
	{"Search", nil},
	{"Categories", nil},
	{"Tags", nil},
	{"Venues", nil},
	{"Orgs", func(f *EventFilter) { f.Orgs = []uint64{1} }},
	{"Featured", func(f *EventFilter) { f.Featured = ptr(false) }},
	{"Geo", nil},
	{"Include", func(f *EventFilter) { f.Include = []uint64{1} }},
	{"Parent", func(f *EventFilter) { f.Parent = 1 }},
	{"Collapse", func(f *EventFilter) { f.Collapse = true }},
	{"Facets", func(f *EventFilter) { f.Facets = &Facets{} }},
	{"Order", func(f *EventFilter) { f.Order = OrderModified }},
	{"Desc", func(f *EventFilter) { f.Desc = true }},
	{"Offset", nil},
	{"Limit", nil},
}

// filterFields lists the names of t's fields, those of embedded structs in their place.
func filterFields(t reflect.Type) []string {
	var names []string
	for i := range t.NumField() {
		if sf := t.Field(i); sf.Anonymous && sf.Type.Kind() == reflect.Struct {
			names = append(names, filterFields(sf.Type)...)
		} else {
			names = append(names, sf.Name)
		}
	}
	return names
}

// TestEventFilterFieldsClassified: every field of EventFilter has a row in eventFilterFields, the
// equivalence generator (randomEventFilter) sets it, so that the brute-force and key path tests try
// it, and keyable refuses each value its row says it must. A new filter field fails here until it is
// classified, and if it is said to be honoured, TestKeyableListsEqualScan fails unless listedPage
// honours it.
func TestEventFilterFieldsClassified(t *testing.T) {
	var classified []string
	for _, row := range eventFilterFields {
		classified = append(classified, row.name)
	}
	fields := filterFields(reflect.TypeFor[EventFilter]())
	for _, name := range fields {
		if !slices.Contains(classified, name) {
			t.Errorf("EventFilter.%s has no row in eventFilterFields: say whether listedPage honours it or keyable refuses it", name)
		}
	}
	for _, name := range classified {
		if !slices.Contains(fields, name) {
			t.Errorf("eventFilterFields names %s, which EventFilter has no more", name)
		}
	}

	w := newStore(t, t.TempDir(), 1)
	set := map[string]bool{}
	for range 2000 {
		v := reflect.ValueOf(w.randomEventFilter()).Elem()
		for _, name := range classified {
			if field := v.FieldByName(name); field.IsValid() && !field.IsZero() {
				set[name] = true
			}
		}
	}
	for _, name := range classified {
		if !set[name] {
			t.Errorf("randomEventFilter never sets EventFilter.%s: the equivalence tests do not try it", name)
		}
	}

	base := EventFilter{Lang: "en", Now: testNow, Start: testNow, End: testNow.Add(time.Hour), Limit: 10}
	if !base.keyable() {
		t.Fatalf("keyable refuses a list with no filter but its dates: %+v", base)
	}
	for _, row := range eventFilterFields {
		if row.refuse == nil {
			continue
		}
		f := base
		row.refuse(&f)
		if f.keyable() {
			t.Errorf("keyable accepts %s as set by its row: %+v", row.name, f)
		}
	}
}

// TestKeyableListsEqualScan: every list of the equivalence generator that keyable accepts is answered
// by the keys (unless a filter other than geo leads a geo filter) as visiting the rows answers it,
// and no list it refuses is answered by the keys.
func TestKeyableListsEqualScan(t *testing.T) {
	ctx := context.Background()
	for seed := range uint64(*seeds) {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			w := newWorld(t, seed, 300)
			keyed := 0
			for i := range 300 {
				f := w.randomEventFilter()
				// Before every scheduled row is due, so that the keys answer.
				f.Now = testNow.Add(-1000 * time.Hour)
				l := w.ix.langs[f.Lang]
				text, err := l.textMatches(ctx, f.Search, w.ix.Version(), false)
				if err != nil {
					t.Fatal(err)
				}
				got, ok := l.proj.listedPage(f, text, func() *roaring.Bitmap { return l.proj.listedAt(text) }, l.union)
				switch {
				case ok && !f.keyable():
					t.Fatalf("query %d: the keys answer %+v, which keyable refuses", i, *f)
				case !ok && f.keyable() && f.Geo == nil:
					t.Fatalf("query %d: the keys do not answer %+v, which keyable accepts", i, *f)
				case !ok:
					continue
				}
				keyed++
				if want := l.proj.scanPage(f, text, nil); got.Total != want.Total || !slices.Equal(got.IDs, want.IDs) {
					t.Fatalf("query %d %+v\n got %d %v\nwant %d %v", i, *f, got.Total, got.IDs, want.Total, want.IDs)
				}
			}
			if keyed == 0 {
				t.Error("the keys answered no list")
			}
		})
	}
}
