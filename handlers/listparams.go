package handlers

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/calendard/calendard/handlers/input"
	"github.com/calendard/calendard/storage"
	"github.com/calendard/calendard/storage/slug"
)

// The parameter tables of the lists (docs/API.md "Events list parameters", "Venue and organizer list parameters", "Category and tag list parameters"), and the parsers of the values that name no
// record; those that do read the store and are in listrefs.go. Paging is in listpage.go.

// eventListParams is the events list table (docs/API.md "Events list parameters"), in the order rest_url echoes them.
var eventListParams = slices.Concat(pageParams, eventFilterParams, facetParams, []Param{highlightParam})

// eventFilterParams are the parameters that choose the listed events, each written into the events
// list's query (eventQuery): a representation of the events list that is not paged in the list's way
// takes them without pageParams. A new filter is a row here that sets a field of index.EventFilter.
// The order's rows come last: it chooses which events a representation bounded in size shows (the
// feed's first MaxFeedEvents).
var eventFilterParams = append([]Param{
	{Name: "start_date", Type: tDateTime, parse: parseDayBound(false), Desc: "Events starting on or after this date.",
		set: into(func(q *eventQuery, b dayBound) { q.Start = b.t })},
	{Name: "end_date", Type: tDateTime, parse: parseDayBound(true), Desc: "Events starting on or before this date.",
		set: into(func(q *eventQuery, b dayBound) { q.End = b.t })},
	{Name: "search", Type: tString, NonEmpty: true, Desc: "Words in the title, excerpt or description. Any form of a word counts, and so does the beginning of a word. A search that finds nothing is answered with typo tolerance and the header X-Calendar-Search: typo-tolerant.",
		set: into(func(q *eventQuery, s string) { q.Search = s })},
	{Name: "categories", Type: tList, Items: tInt, parse: parseTermFilter(storage.TaxCategory), Desc: "Category IDs or slugs.",
		set: into(func(q *eventQuery, t termFilter) { q.categories = t.ids })},
	{Name: "tags", Type: tList, Items: tInt, parse: parseTermFilter(storage.TaxTag), Desc: "Tag IDs or slugs.",
		set: into(func(q *eventQuery, t termFilter) { q.Tags = t.ids })},
	{Name: "venue", Type: tList, Items: tInt, parse: parseLinkedFilter(storage.TypeVenue), Desc: "Venue IDs.",
		set: into(func(q *eventQuery, ids idList) { q.Venues = ids })},
	{Name: "organizer", Type: tList, Items: tInt, parse: parseLinkedFilter(storage.TypeOrganizer), Desc: "Organizer IDs.",
		set: into(func(q *eventQuery, ids idList) { q.Orgs = ids })},
	{Name: "featured", Type: tBool, Desc: "Only featured (true) or only non-featured (false) events.",
		set: into(func(q *eventQuery, b bool) { q.Featured = &b })},
	{Name: "status", Type: tList, Items: tString, parse: parseStatusFilter, Desc: "Post statuses.",
		set: into(func(q *eventQuery, s []storage.Status) { q.Statuses = s })},
	{Name: "geoloc", Type: tBool, Desc: "Only events whose venue has coordinates.",
		set: into(func(q *eventQuery, b bool) { q.geoloc = b })},
	{Name: "geoloc_lat", Type: tNumber, parse: parseRange(-90, 90, false), Desc: "Latitude of the centre.",
		set: into(func(q *eventQuery, f float64) { q.lat = &f })},
	{Name: "geoloc_lng", Type: tNumber, parse: parseRange(-180, 180, false), Desc: "Longitude of the centre.",
		set: into(func(q *eventQuery, f float64) { q.lng = &f })},
	{Name: "geoloc_radius", Type: tNumber, Default: defaultRadiusKm, parse: parseRange(0, 20000, true), Desc: "Radius in kilometres.",
		set: into(func(q *eventQuery, f float64) { q.radiusKm = f })},
	{Name: "include", Type: tList, Items: tInt, parse: parseInclude, Desc: "Only these event IDs; date bounds are ignored.",
		set: into(func(q *eventQuery, ids idList) { q.Include = ids })},
	{Name: "post_parent", Type: tInt, parse: parseEventRef, Desc: "Parent event ID.",
		set: into(func(q *eventQuery, id int64) { q.Parent = uint64(id) })},
	{Name: "hide_subsequent_recurrences", Type: tBool, Default: false, Desc: "Only the first occurrence of each series.",
		set: into(func(q *eventQuery, b bool) { q.Collapse = b })},
}, orderParams...)

// placeListParams is the venues and organizers list table (docs/API.md "Venue and organizer list parameters"), written into placeQuery.
var placeListParams = append(slices.Clone(pageParams),
	Param{Name: "search", Type: tString, NonEmpty: true, Desc: "Words in the name, description or contact fields. Any form of a word counts, and so does the beginning of a word. A search that finds nothing is answered with typo tolerance and the header X-Calendar-Search: typo-tolerant.",
		set: into(func(q *placeQuery, s string) { q.Search = s })},
	Param{Name: "event", Type: tInt, parse: parseEventRef, Desc: "Only records linked to this event.",
		set: into(func(q *placeQuery, id int64) { q.event = uint64(id) })},
	Param{Name: "has_events", Type: tTruthy, Desc: "Only records with (true) or without (false) events.",
		set: into(func(q *placeQuery, b bool) { q.HasEvents = &b })},
	Param{Name: "only_with_upcoming", Type: tTruthy, Default: false, Desc: "Only records with upcoming events.",
		set: into(func(q *placeQuery, b bool) { q.Upcoming = b })},
	Param{Name: "status", Type: tList, Items: tString, parse: parseStatusFilter, Desc: "Post statuses.",
		set: into(func(q *placeQuery, s []storage.Status) { q.Statuses = s })},
	highlightParam,
)

var termOrderby = []string{"id", "include", "name", "slug", "include_slugs", "term_group", "description", "count"}

// termListParams is the categories and tags list table (docs/API.md "Category and tag list parameters"), written into termQuery.
func termListParams(k *termKind) []Param {
	params := append(slices.Clone(pageParams),
		Param{Name: "search", Type: tString, NonEmpty: true, Desc: "Text contained in the name or slug.",
			set: into(func(q *termQuery, s string) { q.search = s })},
		Param{Name: "exclude", Type: tList, Items: tInt, parse: parseTermIDs(k.tax), Desc: "Term IDs to leave out.",
			set: into(func(q *termQuery, ids idList) { q.exclude = ids })},
		Param{Name: "include", Type: tList, Items: tInt, parse: parseTermIDs(k.tax), Desc: "Only these term IDs.",
			set: into(func(q *termQuery, ids idList) { q.include = ids })},
		Param{Name: "order", Type: tString, Default: "asc", parse: parseLowerEnum("asc", "desc"), Desc: "Sort direction.",
			set: into(func(q *termQuery, s string) { q.desc = strings.ToLower(s) == "desc" })},
		Param{Name: "orderby", Type: tString, Default: defaultTermOrderby, Enum: termOrderby, Desc: "Term attribute to sort by.",
			set: into(func(q *termQuery, s string) { q.orderby = s })},
		Param{Name: "hide_empty", Type: tBool, Default: true, Desc: "Hide terms assigned to no published event.",
			set: into(func(q *termQuery, b bool) { q.hideEmpty = b })},
	)
	if k.tax == storage.TaxCategory {
		params = append(params, Param{Name: "parent", Type: tInt, parse: parseParentFilter, Desc: "Only children of this category (0: top level).",
			set: into(func(q *termQuery, id int64) { q.parent = &id })})
	}
	return append(params,
		Param{Name: "post", Type: tInt, parse: parseEventRef, Desc: "Only terms of this event.",
			set: into(func(q *termQuery, id int64) { q.post = uint64(id) })},
		Param{Name: "event", Type: tInt, parse: parseEventRef, Desc: "Alias of post.",
			set: into(func(q *termQuery, id int64) { q.event = uint64(id) })},
		Param{Name: "slug", Type: tList, Items: tString, parse: parseSlugs, Desc: "Only terms with these slugs.",
			set: into(func(q *termQuery, f slugFilter) { q.slugs = f.slugs })},
	)
}

// dayBound is a parsed start_date/end_date: the instant of the whole-day bound in the site zone.
type dayBound struct{ t time.Time }

// parseDayBound reads a date-time in the site zone and widens it to the start (or end) of its day
// there (docs/API.md "Events list parameters").
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
		// Each item is an integer as docs/API.md "Parameters and bodies" reads one, sign included.
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

// parseStatusFilter implements the `status` filter of docs/API.md "Lists".
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

// parseLowerEnum accepts one of values in any case; the value is kept as sent, for rest_url.
func parseLowerEnum(values ...string) func(*request, any) (any, *problem) {
	return func(_ *request, v any) (any, *problem) {
		s, err := coerceType(tString, v)
		if err != nil {
			return nil, typeProblem(err)
		}
		if !slices.Contains(values, strings.ToLower(s.(string))) {
			return nil, &problem{code: "rest_not_in_enum", message: "must be one of " + strings.Join(values, ", ")}
		}
		return s, nil
	}
}

// slugFilter is a parsed slug filter: the items as sent (for rest_url) and normalised.
type slugFilter struct {
	items, slugs []string
}

func parseSlugs(_ *request, v any) (any, *problem) {
	items, prob := listItems(v)
	if prob != nil {
		return nil, prob
	}
	f := slugFilter{items: items, slugs: make([]string, len(items))}
	for i, s := range items {
		f.slugs[i] = slug.Normalize(s)
	}
	return f, nil
}
