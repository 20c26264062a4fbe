package handlers

import (
	"net/http"
	"strconv"

	"github.com/calendard/calendard/storage"
)

var (
	idParams   = []Param{{Name: "id", Type: tInt, Required: true, In: "path", Desc: "Numeric ID of the record."}}
	slugParams = []Param{{Name: "slug", Type: tString, Required: true, In: "path", Desc: "Slug of the record."}}
)

// eventParams is the event field table (SEED 2.2, CONTRACT 3.9.1), in the seed's order.
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
}

// eventInput turns validated parameters into the store's input.
func eventInput(rq *request, vals values) *storage.EventInput {
	in := &storage.EventInput{PostInput: postInput(rq, vals, "title")}
	in.Excerpt = richText(vals.str("excerpt"), rq.actor.Can(storage.CapUnfilteredHTML))
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
	return in
}

func (h *Handler) createEvent(w http.ResponseWriter, rq *request) error {
	if err := rq.require(storage.CapEditPosts); err != nil {
		return err
	}
	e, err := h.db.CreateEvent(rq.r.Context(), rq.actor, rq.lang, eventInput(rq, rq.vals))
	if err != nil {
		return err
	}
	return h.respondEvent(w, rq, e.ID, http.StatusCreated)
}

// respondEvent answers a write with the event as it is now (no json_ld, CONTRACT 3.7).
func (h *Handler) respondEvent(w http.ResponseWriter, rq *request, id uint64, status int) error {
	h.settle(rq)
	e, rel, err := h.db.Event(rq.r.Context(), id)
	if err != nil {
		return err
	}
	body := h.renderEvent(rq, e, rel, false)
	if status == http.StatusCreated {
		w.Header().Set("Location", h.restURL(rq, &e.Post))
	}
	h.writeJSON(w, rq, status, body.pick(rq.fields))
	return nil
}

// findEvent loads the event a single-event route addresses: by ID, or by slug in the selected
// language.
func (h *Handler) findEvent(rq *request) (*storage.Event, *storage.Related, error) {
	if rq.slug != "" {
		return h.db.EventBySlug(rq.r.Context(), rq.lang, rq.slug)
	}
	id, err := strconv.ParseUint(rq.pathID, 10, 64)
	if err != nil { // beyond 2^64-1: matches the route, designates nothing
		return nil, nil, &storage.Error{Op: storage.OpGet, Resource: storage.DocEvent, Err: storage.ErrNotFound}
	}
	return h.db.Event(rq.r.Context(), id)
}

// eventRecord is the event the path designates, for the permission checks on it; nil when none.
func (h *Handler) eventRecord(rq *request) *storage.Post {
	if e, _, err := h.findEvent(rq); err == nil {
		return &e.Post
	}
	return nil
}

func (h *Handler) getEvent(w http.ResponseWriter, rq *request) error {
	e, rel, err := h.findEvent(rq)
	if err != nil {
		return err
	}
	switch {
	case e.Status == storage.StatusTrash:
		return &storage.Error{Op: storage.OpGet, Resource: storage.DocEvent, ID: e.ID, Err: storage.ErrTrashed}
	case !rq.actor.CanRead(&e.Post):
		return &storage.Error{Op: storage.OpGet, Resource: storage.DocEvent, ID: e.ID, Err: storage.ErrForbidden}
	}
	h.writeSingle(w, rq, h.renderEvent(rq, e, rel, true))
	return nil
}

// checkEvent applies the record-level permission of an event write route (CONTRACT 4.2): on the record
// when it exists, otherwise the capability, and only then the lookup's own error.
func (h *Handler) checkEvent(rq *request, may func(storage.Actor, *storage.Post) bool, fallback storage.Cap) (*storage.Event, error) {
	e, _, err := h.findEvent(rq)
	if err == nil {
		if !may(rq.actor, &e.Post) {
			return nil, storage.ErrForbidden
		}
		return e, nil
	}
	if rq.slug == "" {
		if ferr := rq.require(fallback); ferr != nil {
			return nil, ferr
		}
	}
	return nil, err
}

func (h *Handler) updateEvent(w http.ResponseWriter, rq *request) error {
	e, err := h.checkEvent(rq, storage.Actor.CanEdit, storage.CapEditPosts)
	if err != nil {
		return err
	}
	if _, err := h.db.UpdateEvent(rq.r.Context(), rq.actor, e.ID, eventInput(rq, rq.vals)); err != nil {
		return err
	}
	return h.respondEvent(w, rq, e.ID, http.StatusOK)
}

func (h *Handler) deleteEvent(w http.ResponseWriter, rq *request) error {
	e, err := h.checkEvent(rq, storage.Actor.CanDelete, storage.CapDeletePosts)
	if err != nil {
		return err
	}
	if _, err := h.db.TrashEvent(rq.r.Context(), rq.actor, e.ID); err != nil {
		return err
	}
	return h.respondEvent(w, rq, e.ID, http.StatusOK)
}
