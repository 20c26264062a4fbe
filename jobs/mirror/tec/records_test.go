package tec_test

import (
	"context"
	"testing"
	"time"

	"github.com/calendard/calendard/jobs/mirror"
	"github.com/calendard/calendard/jobs/mirror/tec"
	"github.com/calendard/calendard/jobs/mirror/tec/tectest"
)

// TestSameSecondEdit: an edit made on the site in the same second as the import's read of the record
// leaves its modified time as it was; it arrives all the same, through a cheap run (whatever the
// interval since) and through a complete walk. Once read well after its modification the record is
// not fetched again.
func TestSameSecondEdit(t *testing.T) {
	for _, hideWP := range []bool{false, true} {
		t.Run(map[bool]string{false: "cheap", true: "full walk"}[hideWP], func(t *testing.T) {
			now := siteNow
			site, root, _ := clockSite(t, &now)
			site.HideWP = hideWP
			saved := now.Format("2006-01-02 15:04:05")
			id := site.Put(tectest.Events, event(0, "publish", "Before", "2030-06-01 10:00:00", "2030-06-01 12:00:00", map[string]any{"modified_utc": saved}))
			db := openDB(t)
			im := importer(db, []tec.Root{{URL: root, Lang: "en"}}, "", "")
			opts := mirror.Options{Now: func() time.Time { return now }}
			wantReport(t, sync(t, im, opts), "added 1, updated 0, trashed 0, unchanged 0, failed 0")
			site.Put(tectest.Events, event(int(id), "publish", "After", "2030-06-01 10:00:00", "2030-06-01 12:00:00", map[string]any{"modified_utc": saved}))
			now = now.Add(time.Hour)
			wantReport(t, sync(t, im, opts), "added 0, updated 1, trashed 0, unchanged 0, failed 0")
			if e, _, err := db.Event(context.Background(), id); err != nil || e.Title != "After" {
				t.Errorf("event after the same-second edit: %+v %v, want its new title", e, err)
			}
			now = now.Add(time.Hour)
			site.Details.Store(0)
			wantReport(t, sync(t, im, opts), "added 0, updated 0, trashed 0, unchanged 1, failed 0")
			// A complete walk also probes the post IDs past the highest a list showed.
			if n, want := site.Details.Load(), map[bool]int64{false: 0, true: tec.ProbeBeyond}[hideWP]; n != want {
				t.Errorf("%d detail fetches once the record is settled, want %d", n, want)
			}
		})
	}
}
