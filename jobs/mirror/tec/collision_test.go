package tec_test

import (
	"context"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/calendard/calendard/jobs/mirror"
	"github.com/calendard/calendard/jobs/mirror/tec"
	"github.com/calendard/calendard/jobs/mirror/tec/tectest"
	"github.com/calendard/calendard/storage"
	"github.com/calendard/calendard/storage/datetime"
)

// TestLocalRecordCollision: a record created here that holds an ID the site then gives a record of
// its own (a store without LocalIDBase, as before it) is never written over: every run reports the
// site's record as failed, naming both, and the local record stays as it was; the walk and the cheap
// run alike.
func TestLocalRecordCollision(t *testing.T) {
	for _, hideWP := range []bool{false, true} {
		t.Run(map[bool]string{false: "cheap", true: "full walk"}[hideWP], func(t *testing.T) {
			site, srv := newSite(t)
			site.HideWP = hideWP
			db := openDB(t)
			im := importer(db, []tec.Root{{URL: srv.URL + "/wp-json", Lang: "en"}}, "", "")
			wantReport(t, sync(t, im, mirror.Options{}), "added 7, updated 0, trashed 0, unchanged 0, failed 1")
			ctx := context.Background()
			ours, err := db.CreateEvent(ctx, admin, "en", &storage.EventInput{PostInput: storage.PostInput{Title: ptr("Ours")},
				Start: when(t, "2030-09-01 10:00:00"), End: when(t, "2030-09-01 11:00:00")})
			if err != nil {
				t.Fatal(err)
			}
			ourTag, err := db.CreateTerm(ctx, admin, storage.TaxTag, &storage.TermInput{Name: ptr("ours")})
			if err != nil {
				t.Fatal(err)
			}
			before, _, _ := db.Event(ctx, ours.ID)
			beforeTag, _, _ := db.Term(ctx, storage.TaxTag, ourTag.ID)
			// The site's next IDs are the ones we took.
			site.Put(tectest.Events, event(int(ours.ID), "publish", "The site's own", "2030-10-01 20:00:00", "2030-10-01 21:00:00",
				map[string]any{"modified_utc": "2026-11-22 09:59:00"}))
			site.Put(tectest.Tags, map[string]any{"id": ourTag.ID, "name": "site tag", "slug": "site-tag", "parent": 0})
			for run := 1; run <= 2; run++ {
				rep := sync(t, im, mirror.Options{})
				wantReport(t, rep, "added 0, updated 0, trashed 0, unchanged 7, failed 3")
				for _, want := range []mirror.Failure{
					{Kind: "event", ID: strconv.FormatUint(ours.ID, 10), Reason: "the source's event " + strconv.FormatUint(ours.ID, 10) +
						" is not written over our event " + strconv.FormatUint(ours.ID, 10) + ", created here"},
					{Kind: "tag", ID: strconv.FormatUint(ourTag.ID, 10), Reason: "the source's tag " + strconv.FormatUint(ourTag.ID, 10) +
						" is not written over our tag " + strconv.FormatUint(ourTag.ID, 10) + ", created here"},
				} {
					if !hasFailure(rep.Failures, want) {
						t.Errorf("run %d: failures %+v, want %s %s failing with %q", run, rep.Failures, want.Kind, want.ID, want.Reason)
					}
				}
				if after, _, err := db.Event(ctx, ours.ID); err != nil || !reflect.DeepEqual(before, after) {
					t.Errorf("run %d: our event changed (%v):\n%+v\nwas\n%+v", run, err, after, before)
				}
				if afterTag, _, err := db.Term(ctx, storage.TaxTag, ourTag.ID); err != nil || !reflect.DeepEqual(beforeTag, afterTag) {
					t.Errorf("run %d: our tag changed (%v): %+v, was %+v", run, err, afterTag, beforeTag)
				}
				if links, _ := db.Linked(ctx, srv.URL+"/wp-json"); links["event:"+strconv.FormatUint(ours.ID, 10)].Doc.ID != 0 {
					t.Errorf("run %d: the site's event is linked to ours", run)
				}
			}
		})
	}
}

func when(t *testing.T, s string) *datetime.Expr {
	t.Helper()
	x, err := datetime.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return &x
}

func hasFailure(fs []mirror.Failure, want mirror.Failure) bool {
	for _, f := range fs {
		if f.Kind == want.Kind && f.ID == want.ID && strings.Contains(f.Reason, want.Reason) {
			return true
		}
	}
	return false
}
