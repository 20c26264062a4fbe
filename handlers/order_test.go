package handlers

import (
	"bytes"
	"slices"
	"testing"

	"github.com/calendard/calendard/index"
)

// TestSetOrder: each orderby and order the events list takes becomes the index's order with its
// default direction, and each combination its filters cannot answer is a problem naming the
// parameter to change (docs/API.md "Ordering").
func TestSetOrder(t *testing.T) {
	desc, asc := true, false
	lat := 48.85
	tests := []struct {
		name       string
		q          eventQuery
		wantOrder  index.Order
		wantDesc   bool
		wantParams []string
	}{
		{name: "nothing sent: by start, ascending", wantOrder: index.OrderStart},
		{name: "start_date descending", q: eventQuery{orderby: "start_date", desc: &desc}, wantOrder: index.OrderStart, wantDesc: true},
		{name: "relevance: best first", q: eventQuery{orderby: "relevance", EventFilter: index.EventFilter{Search: "jazz"}},
			wantOrder: index.OrderRelevance, wantDesc: true},
		{name: "relevance with desc", q: eventQuery{orderby: "relevance", desc: &desc, EventFilter: index.EventFilter{Search: "jazz"}},
			wantOrder: index.OrderRelevance, wantDesc: true},
		{name: "relevance ascending", q: eventQuery{orderby: "relevance", desc: &asc, EventFilter: index.EventFilter{Search: "jazz"}},
			wantOrder: index.OrderRelevance, wantParams: []string{"order"}},
		{name: "relevance without search", q: eventQuery{orderby: "relevance"}, wantOrder: index.OrderRelevance, wantDesc: true,
			wantParams: []string{"orderby"}},
		{name: "distance: nearest first", q: eventQuery{orderby: "distance", geoloc: true, lat: &lat, lng: &lat},
			wantOrder: index.OrderDistance},
		{name: "distance descending", q: eventQuery{orderby: "distance", desc: &desc, geoloc: true, lat: &lat, lng: &lat},
			wantOrder: index.OrderDistance, wantDesc: true},
		{name: "distance without geoloc", q: eventQuery{orderby: "distance", lat: &lat, lng: &lat}, wantOrder: index.OrderDistance,
			wantParams: []string{"orderby"}},
		{name: "distance without a centre", q: eventQuery{orderby: "distance", geoloc: true}, wantOrder: index.OrderDistance,
			wantParams: []string{"orderby"}},
		{name: "distance with half a centre: geoloc's problem", q: eventQuery{orderby: "distance", geoloc: true, lat: &lat},
			wantOrder: index.OrderDistance},
		{name: "modified: last first", q: eventQuery{orderby: "modified"}, wantOrder: index.OrderModified, wantDesc: true},
		{name: "modified ascending", q: eventQuery{orderby: "modified", desc: &asc}, wantOrder: index.OrderModified},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := tc.q.EventFilter
			var got []string
			for _, p := range tc.q.setOrder(&f) {
				got = append(got, p.name)
			}
			if f.Order != tc.wantOrder || f.Desc != tc.wantDesc || !slices.Equal(got, tc.wantParams) {
				t.Errorf("order %v desc %v, problems %v; want %v %v, %v", f.Order, f.Desc, got, tc.wantOrder, tc.wantDesc, tc.wantParams)
			}
		})
	}
}

// TestWithDistance: distance_km, to a tenth, ends every kind of list item: an obj (which _fields cuts
// down afterwards), and an encoded item from the item cache, written with the member appended.
func TestWithDistance(t *testing.T) {
	tests := []struct {
		name string
		item any
		km   float64
		want string
	}{
		{"encoded item", rawJSON(`{"id":7,"title":"A}"}`), 12.34, `{"id":7,"title":"A}","distance_km":12.3}`},
		{"empty object", rawJSON(`{}`), 0.05, `{"distance_km":0.1}`},
		{"rounded down", rawJSON(`{"id":1}`), 0.04, `{"id":1,"distance_km":0}`},
		{"obj", obj{{"id", 7}}, 391.96, `{"id":7,"distance_km":392}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := encodeValue(&buf, withDistance(tc.item, tc.km)); err != nil {
				t.Fatal(err)
			}
			if buf.String() != tc.want {
				t.Errorf("%s, want %s", buf.String(), tc.want)
			}
		})
	}
}
