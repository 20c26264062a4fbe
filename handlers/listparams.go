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

// The parameter tables of the lists (CONTRACT 5.2–5.4), and the parsers of the values that name no
// record; those that do read the store and are in listrefs.go. Paging is in listpage.go.

// eventListParams is the events list table (CONTRACT 5.2), in the order rest_url echoes them.
var eventListParams = append(slices.Clone(pageParams), eventFilterParams...)

// eventFilterParams are the parameters that choose the listed events, all that eventFilter reads: a
// representation of the events list that is not paged in the list's way takes them without
// pageParams.
var eventFilterParams = []Param{
	{Name: "start_date", Type: tDateTime, parse: parseDayBound(false), Desc: "Events starting on or after this date."},
	{Name: "end_date", Type: tDateTime, parse: parseDayBound(true), Desc: "Events starting on or before this date."},
	{Name: "search", Type: tString, NonEmpty: true, Desc: "Words in the title, excerpt or description. Any form of a word counts, and so does the beginning of a word. A search that finds nothing is answered with typo tolerance and the header X-Calendar-Search: typo-tolerant."},
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
	{Name: "hide_subsequent_recurrences", Type: tBool, Default: false, Desc: "Only the first occurrence of each series."},
}

// placeListParams is the venues and organizers list table (CONTRACT 5.3).
var placeListParams = append(slices.Clone(pageParams),
	Param{Name: "search", Type: tString, NonEmpty: true, Desc: "Words in the name, description or contact fields. Any form of a word counts, and so does the beginning of a word. A search that finds nothing is answered with typo tolerance and the header X-Calendar-Search: typo-tolerant."},
	Param{Name: "event", Type: tInt, parse: parseEventRef, Desc: "Only records linked to this event."},
	Param{Name: "has_events", Type: tTruthy, Desc: "Only records with (true) or without (false) events."},
	Param{Name: "only_with_upcoming", Type: tTruthy, Default: false, Desc: "Only records with upcoming events."},
	Param{Name: "status", Type: tList, Items: tString, parse: parseStatusFilter, Desc: "Post statuses."},
)

var termOrderby = []string{"id", "include", "name", "slug", "include_slugs", "term_group", "description", "count"}

// termListParams is the categories and tags list table (CONTRACT 5.4).
func termListParams(k *termKind) []Param {
	params := append(slices.Clone(pageParams),
		Param{Name: "search", Type: tString, NonEmpty: true, Desc: "Text contained in the name or slug."},
		Param{Name: "exclude", Type: tList, Items: tInt, parse: parseTermIDs(k.tax), Desc: "Term IDs to leave out."},
		Param{Name: "include", Type: tList, Items: tInt, parse: parseTermIDs(k.tax), Desc: "Only these term IDs."},
		Param{Name: "order", Type: tString, Default: "asc", parse: parseLowerEnum("asc", "desc"), Desc: "Sort direction."},
		Param{Name: "orderby", Type: tString, Default: "name", Enum: termOrderby, Desc: "Term attribute to sort by."},
		Param{Name: "hide_empty", Type: tBool, Default: true, Desc: "Hide terms assigned to no published event."},
	)
	if k.tax == storage.TaxCategory {
		params = append(params, Param{Name: "parent", Type: tInt, parse: parseParentFilter, Desc: "Only children of this category (0: top level)."})
	}
	return append(params,
		Param{Name: "post", Type: tInt, parse: parseEventRef, Desc: "Only terms of this event."},
		Param{Name: "event", Type: tInt, parse: parseEventRef, Desc: "Alias of post."},
		Param{Name: "slug", Type: tList, Items: tString, parse: parseSlugs, Desc: "Only terms with these slugs."},
	)
}

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
