package handlers

import (
	"context"
	"net/http/httptest"
	"reflect"
	"testing"
	"time"

	"github.com/calendard/calendard/storage"
	"github.com/calendard/calendard/storage/datetime"
)

// TestListRowsWriteTheirQuery: each row of every list table, sent alone with a valid value, changes
// the query its list reads (endpoint.query), so that no parameter is validated, echoed in rest_url and
// then ignored. A new row fails here until it has a sample value.
func TestListRowsWriteTheirQuery(t *testing.T) {
	ctx := context.Background()
	_, db := newTestHandler(t, Config{})
	admin := storage.Actor{UserID: 1, Role: storage.RoleAdministrator}
	str := func(s string) *string { return &s }
	cat, err := db.CreateTerm(ctx, admin, storage.TaxCategory, &storage.TermInput{Name: str("Music")})
	if err != nil {
		t.Fatal(err)
	}
	tag, err := db.CreateTerm(ctx, admin, storage.TaxTag, &storage.TermInput{Name: str("Free")})
	if err != nil {
		t.Fatal(err)
	}
	venue, _, err := db.CreateVenue(ctx, admin, "en", &storage.VenueInput{PostInput: storage.PostInput{Title: str("Hall")}})
	if err != nil {
		t.Fatal(err)
	}
	org, _, err := db.CreateOrganizer(ctx, admin, "en", &storage.OrganizerInput{PostInput: storage.PostInput{Title: str("Club")}})
	if err != nil {
		t.Fatal(err)
	}
	start, err := datetime.Parse("2027-01-01 10:00:00")
	if err != nil {
		t.Fatal(err)
	}
	event, err := db.CreateEvent(ctx, admin, "en", &storage.EventInput{PostInput: storage.PostInput{Title: str("Concert")},
		Start: &start, End: &start})
	if err != nil {
		t.Fatal(err)
	}
	eventID := utoa(event.ID)
	// samples are a valid value of every list parameter, other than its default; a table's own take
	// their place where the name means other records.
	samples := map[string]string{
		"page": "2", "per_page": "5",
		"start_date": "2027-01-01 00:00:00", "end_date": "2027-02-01 00:00:00", "search": "jazz",
		"categories": utoa(cat.ID), "tags": utoa(tag.ID), "venue": utoa(venue.ID), "organizer": utoa(org.ID),
		"featured": "0", "status": "publish", "geoloc": "1", "geoloc_lat": "50", "geoloc_lng": "4", "geoloc_radius": "10",
		"include": eventID, "post_parent": eventID, "hide_subsequent_recurrences": "1",
		"event": eventID, "has_events": "1", "only_with_upcoming": "1", "highlight": "1",
		"order": "DESC", "orderby": "count", "hide_empty": "0", "parent": "0", "post": eventID,
		"slug": "music", "facets": "month", "facet_limit": "5",
	}
	tables := []struct {
		name   string
		params []Param
		query  func(rq *request) any
		own    map[string]string
	}{
		{"events", eventListParams, eventKind.listQuery, map[string]string{"orderby": "modified"}},
		{"feed", eventFilterParams, newEventQuery, map[string]string{"orderby": "modified"}},
		{"venues", placeListParams, venueKind.listQuery, nil},
		{"organizers", placeListParams, organizerKind.listQuery, nil},
		{"categories", termListParams(categoryKind), newTermQuery, map[string]string{"include": utoa(cat.ID), "exclude": utoa(cat.ID)}},
		{"tags", termListParams(tagKind), newTermQuery, map[string]string{"include": utoa(tag.ID), "exclude": utoa(tag.ID)}},
	}
	for _, tc := range tables {
		for _, p := range tc.params {
			t.Run(tc.name+"/"+p.Name, func(t *testing.T) {
				raw, ok := tc.own[p.Name]
				if !ok {
					raw, ok = samples[p.Name]
				}
				if !ok {
					t.Fatalf("no sample value of %s: add one", p.Name)
				}
				rq := &request{r: httptest.NewRequest("GET", "/", nil), db: db, actor: storage.Actor{},
					now: time.Date(2026, 11, 22, 10, 15, 30, 0, time.UTC), site: datetime.Zone{Name: "UTC", Loc: time.UTC}}
				want, got := tc.query(rq), tc.query(rq)
				if _, err := validate(rq, tc.params, map[string]any{p.Name: raw}, got); err != nil {
					t.Fatalf("%s=%s: %v", p.Name, raw, err)
				}
				if reflect.DeepEqual(got, want) {
					t.Errorf("%s=%s leaves the query as it was: %+v", p.Name, raw, got)
				}
			})
		}
	}
}
