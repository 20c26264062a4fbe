package tec_test

import (
	"context"
	"testing"
	"time"

	"github.com/calendard/calendard/jobs/mirror"
	"github.com/calendard/calendard/jobs/mirror/tec"
	"github.com/calendard/calendard/jobs/mirror/tec/tectest"
)

// TestWebsiteNone: the site reports an event's own page URL as its website when it has none, and ""
// once a partial update on the site has reset it; both are "none" here, on every path (first import,
// cheap run, complete walk, an event that has ended): the event reads as one that never had a website
// (our page URL), never as an empty one. A website set on the site arrives, and leaves again.
func TestWebsiteNone(t *testing.T) {
	for _, tc := range []struct {
		name  string
		walk  bool // the site hides /wp/v2: every run walks
		start string
	}{
		{"cheap run", false, "2030-06-01 10:00:00"},
		{"walk", true, "2030-06-01 10:00:00"},
		{"walk, ended", true, "2025-06-01 10:00:00"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			now := siteNow
			site, root, _ := clockSite(t, &now)
			site.HideWP = tc.walk
			id := site.Put(tectest.Events, event(0, "publish", "Gig", tc.start, tc.start[:11]+"12:00:00", nil))
			db := openDB(t)
			im := importer(db, []tec.Root{{URL: root, Lang: "en"}}, "", "")
			opts := mirror.Options{Now: func() time.Time { return now }}
			website := func() *string {
				t.Helper()
				e, _, err := db.Event(context.Background(), id)
				if err != nil {
					t.Fatal(err)
				}
				return e.Website
			}
			for _, step := range []struct {
				what   string
				fields map[string]any // a partial update on the site, before the run
				want   string         // "" for none
			}{
				{"first import, the page URL", nil, ""},
				{"reset to \"\" by a partial update", map[string]any{"title": "Gig (moved)"}, ""},
				{"set on the site", map[string]any{"website": "https://gig.example/?a=1&b=2"}, "https://gig.example/?a=1&b=2"},
				{"set to the page URL", map[string]any{"website": "https://site.example/event/gig/"}, ""},
				{"set again, then reset", map[string]any{"website": "https://gig.example/"}, "https://gig.example/"},
				{"reset again", map[string]any{"description": "<p>New</p>"}, ""},
			} {
				if step.fields != nil {
					now = now.Add(time.Minute)
					site.Update(tectest.Events, id, step.fields)
				}
				now = now.Add(time.Minute)
				if rep := sync(t, im, opts); rep.Failed != 0 {
					t.Fatalf("%s: %v %+v", step.what, rep, rep.Failures)
				}
				switch got := website(); {
				case step.want == "" && got != nil:
					t.Errorf("%s: website %q, want none (our page URL)", step.what, *got)
				case step.want != "" && (got == nil || *got != step.want):
					t.Errorf("%s: website %v, want %q", step.what, got, step.want)
				}
			}
		})
	}
}
