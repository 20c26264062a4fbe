package handlers

import (
	"context"

	"github.com/calendard/calendard/handlers/input"
	"github.com/calendard/calendard/storage"
	"github.com/calendard/calendard/storage/datetime"
)

var (
	idParams   = []Param{{Name: "id", Type: tInt, Required: true, In: "path", Desc: "Numeric ID of the record."}}
	slugParams = []Param{{Name: "slug", Type: tString, Required: true, In: "path", Desc: "Slug of the record."}}
)

// eventParams is the event field table (SEED 2.2, docs/API.md "Event fields"), in the seed's order.
var eventParams = []Param{
	{Name: "author", Type: tInt, Desc: "Author ID."},
	{Name: "date", Type: tString, parse: parseInstant(false), Desc: "Publication date, site time zone."},
	{Name: "date_utc", Type: tString, parse: parseInstant(true), Desc: "Publication date in UTC."},
	{Name: "title", Type: tString, Required: true, NonEmpty: true, MaxLen: maxName, Desc: "Title."},
	{Name: "description", Type: tString, MaxLen: maxRichText, Desc: "Description."},
	{Name: "slug", Type: tString, NonEmpty: true, Desc: "Slug."},
	{Name: "excerpt", Type: tString, MaxLen: maxRichText, Desc: "Excerpt."},
	{Name: "status", Type: tString, Enum: statusEnum, Desc: "Post status."},
	{Name: "timezone", Type: tString, parse: parseZone, Desc: "Time zone of the event."},
	{Name: "all_day", Type: tBool, Default: false, Desc: "Whether the event lasts the whole day."},
	{Name: "start_date", Type: tDateTime, Required: true, Desc: "Start date and time."},
	{Name: "end_date", Type: tDateTime, Required: true, Desc: "End date and time."},
	{Name: "image", Type: tString, parse: parseImage, Desc: "Featured image ID or URL."},
	{Name: "cost", Type: tUntyped, parse: parseCost, Desc: "Cost."},
	{Name: "website", Type: tUntyped, Default: null{}, parse: parseWebsite, Desc: "Event website URL."},
	{Name: "show_map", Type: tBool, Desc: "Whether to show a map."},
	{Name: "show_map_link", Type: tBool, Desc: "Whether to show a map link."},
	{Name: "hide_from_listings", Type: tBool, Desc: "Whether to hide the event in calendar views."},
	{Name: "sticky", Type: tBool, Desc: "Whether the event is sticky in calendar views."},
	{Name: "featured", Type: tBool, Desc: "Whether the event is featured."},
	{Name: "categories", Type: tUntyped, Default: null{}, parse: termItems, Desc: "Category IDs or names."},
	{Name: "tags", Type: tUntyped, Default: null{}, parse: termItems, Desc: "Tag IDs or names."},
	{Name: "venue", Type: tList, Items: tInt, Default: null{}, parse: parseVenue, Desc: "Venue ID or venue data."},
	{Name: "organizer", Type: tList, Items: tInt, Default: null{}, parse: parseOrganizers, Desc: "Organizer IDs or organizer data."},
	{Name: "translation_of", Type: tInt, Desc: "ID of a record this one translates."},
	{Name: "recurrence", Type: tList, Items: tString, parse: parseRecurrence, Desc: "Recurrence rule: RFC 5545 RRULE, RDATE and EXDATE lines; an empty list ends the series."},
}

// eventInput turns validated parameters into the store's input.
func eventInput(vals values) *storage.EventInput {
	in := &storage.EventInput{PostInput: postInput(vals, "title")}
	in.Excerpt = vals.str("excerpt")
	in.Slug = vals.str("slug")
	in.Timezone = vals.str("timezone")
	in.Start, in.End = vals.expr("start_date"), vals.expr("end_date")
	in.Website = vals.str("website")
	in.AllDay, in.ShowMap, in.ShowMapLink = vals.boolean("all_day"), vals.boolean("show_map"), vals.boolean("show_map_link")
	in.HideFromListings, in.Sticky, in.Featured = vals.boolean("hide_from_listings"), vals.boolean("sticky"), vals.boolean("featured")
	if c, ok := vals["cost"].([]string); ok {
		in.Cost = &c
	}
	if c, ok := vals["categories"].([]string); ok {
		in.Categories = &c
	}
	if t, ok := vals["tags"].([]string); ok {
		in.Tags = &t
	}
	if v, ok := vals["venue"].(storage.VenueRef); ok {
		in.Venue = &v
	}
	if o, ok := vals["organizer"].([]storage.OrganizerRef); ok {
		in.Organizers = &o
	}
	if r, ok := vals["recurrence"].([]string); ok {
		in.Recurrence = &r
	}
	return in
}

// eventKind describes the event routes (docs/API.md "Events"): an unknown ID is a missing record (404) found
// after the permission check, and a trashed event is gone for readers.
var eventKind = &recordKind{
	postType: storage.TypeEvent, route: "events", params: eventParams,
	listParams: eventListParams, listQuery: newEventQuery,
	list:      func(h *Handler, _ *recordKind) handleFunc { return h.listEvents },
	trashGone: true,
	// A create with a rule makes a series, and so does an update that gives a rule to an event
	// without one; a new rule for a series replaces its future occurrences rather than adding more.
	makesSeries: func(vals values, old *record) bool {
		rule, _ := vals["recurrence"].([]string)
		return len(rule) > 0 && (old == nil || !old.series)
	},
	load: func(ctx context.Context, db Store, id uint64, lang storage.Lang, slug string) (record, error) {
		e, rel, err := loadBy(ctx, id, lang, slug, db.Event, db.EventBySlug)
		if err != nil {
			return record{}, err
		}
		return record{post: &e.Post, render: func(h *Handler, rq *request, ld bool) obj { return h.renderEvent(rq, e, rel, ld) },
			series: len(e.Recurrence) > 0}, nil
	},
	create: func(ctx context.Context, db Store, rq *request) (*storage.Post, error) {
		e, err := db.CreateEvent(ctx, rq.actor, rq.lang, eventInput(rq.vals))
		if err != nil {
			return nil, err
		}
		return &e.Post, nil
	},
	update: func(ctx context.Context, db Store, rq *request, id uint64) error {
		_, err := db.UpdateEvent(ctx, rq.actor, id, eventInput(rq.vals))
		return err
	},
	// With occurrence, DELETE cancels one occurrence of the series id is the parent of: the first, which
	// is the parent's own and leaves the lists while the parent stays, or another, which is trashed;
	// the answer is the event cancelled.
	trash: func(ctx context.Context, db Store, rq *request, id uint64) (uint64, error) {
		if day := rq.vals.str("occurrence"); day != nil {
			e, err := db.TrashOccurrence(ctx, rq.actor, id, *day)
			if err != nil {
				return 0, err
			}
			return e.ID, nil
		}
		_, err := db.TrashEvent(ctx, rq.actor, id)
		return id, err
	},
	deleteParams: []Param{{Name: "occurrence", Type: tString, parse: parseDay,
		Desc: "Date (YYYY-MM-DD) of the one occurrence of the series to delete, the first included."}},
}

// parseDay reads a date, YYYY-MM-DD.
func parseDay(_ *request, v any) (any, *problem) {
	s, err := input.String(v)
	if err != nil {
		return nil, typeProblem(err)
	}
	if _, err := datetime.ParseWall(s + " 00:00:00"); err != nil {
		return nil, bad("must be a date, YYYY-MM-DD")
	}
	return s, nil
}
