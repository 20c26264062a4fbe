package tec_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/calendard/calendard/jobs/mirror"
	"github.com/calendard/calendard/jobs/mirror/tec"
	"github.com/calendard/calendard/jobs/mirror/tec/tectest"
	"github.com/calendard/calendard/storage"
)

// TestTermPages: a real site's term lists undercount in their headers (here: one page, when the
// parent of every other category is on a second one, sorted by name); the importer walks the pages
// until one comes back short and writes the parent before its children. A category the site deletes
// is deleted here.
func TestTermPages(t *testing.T) {
	now := siteNow
	site, root, _ := clockSite(t, &now)
	const parent = 500
	site.Put(tectest.Categories, map[string]any{"id": parent, "name": "Workshops", "slug": "workshops", "parent": 0})
	for i := range 55 {
		site.Put(tectest.Categories, map[string]any{"id": 501 + i, "name": fmt.Sprintf("A workshop %02d", i), "slug": fmt.Sprintf("a-workshop-%02d", i), "parent": parent})
	}
	site.Put(tectest.Events, event(0, "publish", "Used", "2030-06-01 10:00:00", "2030-06-01 12:00:00", map[string]any{"categories": []any{map[string]any{"id": 501}}}))
	db := openDB(t)
	im := importer(db, []tec.Root{{URL: root, Lang: "en"}}, "", "")
	opts := mirror.Options{}
	wantReport(t, sync(t, im, opts), "added 57, updated 0, trashed 0, unchanged 0, failed 0")
	ctx := context.Background()
	terms, err := db.Terms(ctx, storage.TaxCategory)
	if err != nil || len(terms) != 56 {
		t.Fatalf("%d categories (%v), want 56", len(terms), err)
	}
	for _, c := range terms {
		if c.ID != parent && c.Parent != parent {
			t.Errorf("category %d: parent %d, want %d", c.ID, c.Parent, parent)
		}
	}
	site.Delete(tectest.Categories, 555)
	wantReport(t, sync(t, im, opts), "added 0, updated 0, trashed 1, unchanged 56, failed 0")
	if _, _, err := db.Term(ctx, storage.TaxCategory, 555); err == nil {
		t.Error("a category the site deleted is still here")
	}
}
