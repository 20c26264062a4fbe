package handlers

import (
	"cmp"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/calendard/calendard/handlers/input"
	"github.com/calendard/calendard/index"
	"github.com/calendard/calendard/storage"
)

// eventListParams is the events list table (CONTRACT 5.2), in the order rest_url echoes them.
var eventListParams = append(slices.Clone(pageParams), eventFilterParams...)

// eventFilterParams are the parameters that choose the listed events, all that eventFilter reads: a
// representation of the events list that is not paged in the list's way takes them without
// pageParams.
var eventFilterParams = []Param{
	{Name: "start_date", Type: tDateTime, parse: parseDayBound(false), Desc: "Events starting on or after this date."},
	{Name: "end_date", Type: tDateTime, parse: parseDayBound(true), Desc: "Events starting on or before this date."},
	{Name: "search", Type: tString, NonEmpty: true, Desc: "Words in the title, excerpt or description."},
	{Name: "categories", Type: tList, Items: tInt, parse: parseTermFilter(storage.TaxCategory), Desc: "Category IDs or slugs."},
	{Name: "tags", Type: tList, Items: tInt, parse: parseTermFilter(storage.TaxTag), Desc: "Tag IDs or slugs."},
	{Name: "venue", Type: tList, Items: tInt, parse: parseLinkedFilter(storage.TypeVenue), Desc: "Venue IDs."},
	{Name: "organizer", Type: tList, Items: tInt, parse: parseLinkedFilter(storage.TypeOrganizer), Desc: "Organizer IDs."},
	{Name: "featured", Type: tBool, Desc: "Only featured (true) or only non-featured (false) events."},
	{Name: "status", Type: tList, Items: tString, parse: parseStatusFilter, Desc: "Post statuses."},
	{Name: "geoloc", Type: tBool, Desc: "Only events whose venue has coordinates."},
	{Name: "geoloc_lat", Type: tNumber, parse: parseRange(-90, 90, false), Desc: "Latitude of the centre."},
	{Name: "geoloc_lng", Type: tNumber, parse: parseRange(-180, 180, false), Desc: "Longitude of the centre."},
	{Name: "geoloc_radius", Type: tNumber, Default: 25, parse: parseRange(0, 20000, true), Desc: "Radius in kilometres."},
	{Name: "include", Type: tList, Items: tInt, parse: parseInclude, Desc: "Only these event IDs; date bounds are ignored."},
	{Name: "post_parent", Type: tInt, parse: parseEventRef, Desc: "Parent event ID."},
}

// placeListParams is the venues and organizers list table (CONTRACT 5.3).
var placeListParams = append(slices.Clone(pageParams),
	Param{Name: "search", Type: tString, NonEmpty: true, Desc: "Words in the name, description or contact fields."},
	Param{Name: "event", Type: tInt, parse: parseEventRef, Desc: "Only records linked to this event."},
	Param{Name: "has_events", Type: tTruthy, Desc: "Only records with (true) or without (false) events."},
	Param{Name: "only_with_upcoming", Type: tTruthy, Default: false, Desc: "Only records with upcoming events."},
	Param{Name: "status", Type: tList, Items: tString, parse: parseStatusFilter, Desc: "Post statuses."},
)

// dayBound is a parsed start_date/end_date: the instant of the whole-day bound in the site zone.
type dayBound struct{ t time.Time }

// parseDayBound reads a date-time in the site zone and widens it to the start (or end) of its day
// there (CONTRACT 5.2).
func parseDayBound(end bool) func(*request, any) (any, *problem) {
	return func(rq *request, v any) (any, *problem) {
		e, err := parseDateTime(v)
		if err != nil {
			return nil, bad(err.Error())
		}
		t, err := e.Eval(rq.site.Loc, rq.now)
		if err != nil {
			return nil, bad(err.Error())
		}
		return dayBound{dayEdge(t, rq.site.Loc, end)}, nil
	}
}

func parseRange(lo, hi float64, openLow bool) func(*request, any) (any, *problem) {
	return func(_ *request, v any) (any, *problem) {
		f, err := input.Number(v)
		if err != nil {
			return nil, typeProblem(err)
		}
		if f < lo || f > hi || (openLow && f == lo) {
			return nil, bad("must be between " + strconv.FormatFloat(lo, 'f', -1, 64) + " and " + strconv.FormatFloat(hi, 'f', -1, 64))
		}
		return f, nil
	}
}

// listItems reads a list parameter of 1 to 100 non-empty scalar items.
func listItems(v any) ([]string, *problem) {
	list, err := input.List(v)
	if err != nil {
		return nil, typeProblem(err)
	}
	if len(list) > maxItems {
		return nil, tooLong(maxItems, "items")
	}
	var out []string
	for _, item := range list {
		s, ok := scalarText(item)
		if !ok {
			return nil, &problem{code: "rest_invalid_type", message: "must be a list of IDs or slugs"}
		}
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		return nil, bad("must not be empty")
	}
	return out, nil
}

// idList is a parsed list of record IDs.
type idList []uint64

func parseIDs(v any) (idList, *problem) {
	items, prob := listItems(v)
	if prob != nil {
		return nil, prob
	}
	var ids idList
	for _, item := range items {
		// Each item is an integer as CONTRACT 2.4 reads one, sign included.
		n, err := input.Int(item)
		if err != nil || n < 1 {
			return nil, &problem{code: "rest_invalid_type", message: "must be a list of positive integers"}
		}
		ids = append(ids, uint64(n))
	}
	return ids, nil
}

func parseInclude(_ *request, v any) (any, *problem) {
	return parseIDs(v)
}

// parseStatusFilter implements the `status` filter of CONTRACT 5.5.
func parseStatusFilter(rq *request, v any) (any, *problem) {
	items, prob := listItems(v)
	if prob != nil {
		return nil, prob
	}
	var out []storage.Status
	for _, item := range items {
		if !slices.Contains(statusEnum, item) {
			return nil, &problem{code: "rest_not_in_enum", message: "must be one of " + strings.Join(statusEnum, ", ")}
		}
		out = append(out, storage.Status(item))
	}
	// "Exactly publish" is the set the list names: publish,publish asks for nothing more.
	if !rq.actor.Can(storage.CapEditPosts) && slices.ContainsFunc(out, func(s storage.Status) bool { return s != storage.StatusPublish }) {
		return nil, bad("only publish may be requested without the edit_posts capability")
	}
	return out, nil
}

func (h *Handler) listEvents(w http.ResponseWriter, rq *request) error {
	page, perPage := pageOf(rq)
	f, err := h.eventFilter(rq, (page-1)*perPage, perPage)
	if err != nil {
		return err
	}
	res, err := h.index.Events(rq.r.Context(), f)
	if err != nil {
		return err
	}
	items, err := h.renderItems(rq, storage.TypeEvent, res.IDs)
	if err != nil {
		return err
	}
	return h.writeList(w, rq, listing{key: "events", items: items, total: res.Total, page: page, perPage: perPage,
		doc: storage.DocEvent, params: eventListParams})
}

func (h *Handler) listPlaces(k *recordKind) handleFunc {
	return func(w http.ResponseWriter, rq *request) error {
		page, perPage := pageOf(rq)
		f := &index.PlaceFilter{Type: k.postType, Lang: rq.lang, Visibility: visibility(rq), Now: rq.now,
			Offset: (page - 1) * perPage, Limit: perPage, HasEvents: rq.vals.boolean("has_events")}
		if s := rq.vals.str("search"); s != nil {
			f.Search = *s
		}
		if up := rq.vals.boolean("only_with_upcoming"); up != nil {
			f.Upcoming = *up
		}
		if id, ok := rq.vals["event"].(int64); ok {
			e, _, err := h.db.Event(rq.r.Context(), uint64(id))
			if err != nil {
				return err
			}
			f.Linked = []uint64{}
			if k.postType == storage.TypeVenue && e.VenueID != 0 {
				f.Linked = []uint64{e.VenueID}
			} else if k.postType == storage.TypeOrganizer {
				f.Linked = append(f.Linked, e.OrganizerIDs...)
			}
		}
		res, err := h.index.Places(rq.r.Context(), f)
		if err != nil {
			return err
		}
		items, err := h.renderItems(rq, k.postType, res.IDs)
		if err != nil {
			return err
		}
		return h.writeList(w, rq, listing{key: k.route, items: items, total: res.Total, page: page, perPage: perPage,
			doc: k.postType.DocKind(), params: placeListParams})
	}
}

// sortTerms orders terms for the term lists (CONTRACT 5.4).
func sortTerms(terms []*storage.Term, orderby string, desc bool, include []uint64, slugs []string) {
	position := func(t *storage.Term) int {
		switch {
		case orderby == "include" && include != nil:
			return slices.Index(include, t.ID)
		case orderby == "include_slugs" && slugs != nil:
			return slices.Index(slugs, t.Slug)
		}
		return 0
	}
	slices.SortStableFunc(terms, func(a, b *storage.Term) int {
		var c int
		switch orderby {
		case "name":
			c = cmp.Compare(strings.ToLower(a.Name), strings.ToLower(b.Name))
		case "slug":
			c = cmp.Compare(strings.ToLower(a.Slug), strings.ToLower(b.Slug))
		case "description":
			c = cmp.Compare(a.Description, b.Description)
		case "count":
			c = cmp.Compare(a.Count, b.Count)
		case "id", "term_group":
			c = cmp.Compare(a.ID, b.ID)
			if orderby == "term_group" {
				c = 0
			}
		case "include", "include_slugs":
			if (orderby == "include" && include == nil) || (orderby == "include_slugs" && slugs == nil) {
				c = cmp.Compare(a.ID, b.ID)
			} else {
				c = cmp.Compare(position(a), position(b))
			}
		}
		if desc {
			c = -c
		}
		return cmp.Or(c, cmp.Compare(a.ID, b.ID))
	})
}
