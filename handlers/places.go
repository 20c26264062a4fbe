package handlers

import (
	"context"
	"net/http"
	"strconv"

	"github.com/calendard/calendard/storage"
)

// venueParams is the venue field table (SEED 2.3, CONTRACT 3.9.2).
var venueParams = []Param{
	{Name: "author", Type: tInt, Desc: "Author ID."},
	{Name: "date", Type: tString, parse: parseInstant(false), Desc: "Publication date, site time zone."},
	{Name: "date_utc", Type: tString, parse: parseInstant(true), Desc: "Publication date in UTC."},
	{Name: "venue", Type: tString, Required: true, NonEmpty: true, MaxLen: maxName, Desc: "Venue name."},
	{Name: "description", Type: tString, MaxLen: maxRichText, Default: null{}, Desc: "Description."},
	{Name: "status", Type: tString, Enum: statusEnum, Desc: "Post status."},
	{Name: "show_map", Type: tTruthy, Default: null{}, Desc: "Whether linked events show a map."},
	{Name: "show_map_link", Type: tTruthy, Default: null{}, Desc: "Whether linked events show a map link."},
	{Name: "address", Type: tString, MaxLen: maxShortText, Default: null{}, Desc: "Address."},
	{Name: "city", Type: tString, MaxLen: maxShortText, Default: null{}, Desc: "City."},
	{Name: "country", Type: tString, MaxLen: maxShortText, Default: null{}, Desc: "Country."},
	{Name: "province", Type: tString, MaxLen: maxShortText, Default: null{}, Desc: "Province."},
	{Name: "state", Type: tString, MaxLen: maxShortText, Default: null{}, Desc: "State."},
	{Name: "zip", Type: tString, MaxLen: maxShortText, Default: null{}, Desc: "Postal code."},
	{Name: "phone", Type: tString, MaxLen: maxShortText, Default: null{}, Desc: "Telephone number."},
	{Name: "stateprovince", Type: tString, MaxLen: maxShortText, Default: null{}, Desc: "State and province combined."},
	{Name: "website", Type: tString, Default: null{}, parse: parseWebsite, Desc: "Website URL."},
	{Name: "image", Type: tString, Default: null{}, parse: parseImage, Desc: "Featured image ID or URL."},
	{Name: "geo_lat", Type: tNumber, parse: parseCoordinate(90), Desc: "Latitude in degrees."},
	{Name: "geo_lng", Type: tNumber, parse: parseCoordinate(180), Desc: "Longitude in degrees."},
	{Name: "translation_of", Type: tInt, Desc: "ID of a record this one translates."},
}

// organizerParams is the organizer field table (SEED 2.4, CONTRACT 3.9.3).
var organizerParams = []Param{
	{Name: "author", Type: tInt, Default: null{}, Desc: "Author ID."},
	{Name: "date", Type: tString, Default: null{}, parse: parseInstant(false), Desc: "Publication date, site time zone."},
	{Name: "date_utc", Type: tString, Default: null{}, parse: parseInstant(true), Desc: "Publication date in UTC."},
	{Name: "organizer", Type: tString, Required: true, NonEmpty: true, MaxLen: maxName, Default: null{}, Desc: "Organizer name."},
	{Name: "description", Type: tString, MaxLen: maxRichText, Default: null{}, Desc: "Description."},
	{Name: "status", Type: tString, Enum: statusEnum, Default: null{}, Desc: "Post status."},
	{Name: "phone", Type: tString, MaxLen: maxShortText, Default: null{}, Desc: "Telephone number."},
	{Name: "website", Type: tString, Default: null{}, parse: parseWebsite, Desc: "Website."},
	{Name: "email", Type: tString, MaxLen: maxShortText, Default: null{}, Desc: "E-mail address."},
	{Name: "image", Type: tString, Default: null{}, parse: parseImage, Desc: "Featured image ID or URL."},
	{Name: "translation_of", Type: tInt, Desc: "ID of a record this one translates."},
}

// coordinate is a parsed geo_lat/geo_lng: a value, or "" to clear.
type coordinate struct {
	val   float64
	clear bool
}

func parseCoordinate(limit float64) func(*request, any) (any, *problem) {
	return func(_ *request, v any) (any, *problem) {
		if s, ok := v.(string); ok && s == "" {
			return coordinate{clear: true}, nil
		}
		f, err := coerceType(tNumber, v)
		if err != nil {
			return nil, typeProblem(err)
		}
		if x := f.(float64); x >= -limit && x <= limit {
			return coordinate{val: x}, nil
		}
		return nil, bad("must be between -" + strconv.Itoa(int(limit)) + " and " + strconv.Itoa(int(limit)))
	}
}

func venueInput(rq *request, vals values) *storage.VenueInput {
	in := &storage.VenueInput{PostInput: postInput(rq, vals, "venue")}
	in.ShowMap, in.ShowMapLink = vals.boolean("show_map"), vals.boolean("show_map_link")
	in.Address, in.City, in.Country = shortText(vals.str("address")), shortText(vals.str("city")), shortText(vals.str("country"))
	in.Province, in.State, in.Zip = shortText(vals.str("province")), shortText(vals.str("state")), shortText(vals.str("zip"))
	in.Phone, in.StateProvince = shortText(vals.str("phone")), shortText(vals.str("stateprovince"))
	in.Website = vals.str("website")
	lat, hasLat := vals["geo_lat"].(coordinate)
	lng, hasLng := vals["geo_lng"].(coordinate)
	if hasLat && hasLng {
		if lat.clear || lng.clear {
			in.ClearGeo = true
		} else {
			in.Geo = &storage.Geo{Lat: lat.val, Lng: lng.val}
		}
	}
	return in
}

// checkGeo reports the coordinate sent without its partner (CONTRACT 3.9.2).
func checkGeo(vals values) error {
	lat, hasLat := vals["geo_lat"].(coordinate)
	lng, hasLng := vals["geo_lng"].(coordinate)
	switch {
	case hasLat && !hasLng:
		return invalidParam("geo_lng", "rest_invalid_param", "geo_lat and geo_lng must be given together")
	case hasLng && !hasLat:
		return invalidParam("geo_lat", "rest_invalid_param", "geo_lat and geo_lng must be given together")
	case hasLat && lat.clear != lng.clear:
		return invalidParam("geo_lat", "rest_invalid_param", "geo_lat and geo_lng must both be cleared")
	}
	return nil
}

func organizerInput(rq *request, vals values) *storage.OrganizerInput {
	in := &storage.OrganizerInput{PostInput: postInput(rq, vals, "organizer")}
	in.Phone, in.Email = shortText(vals.str("phone")), shortText(vals.str("email"))
	in.Website = vals.str("website")
	return in
}

// placeKind is what differs between the venue and organizer routes, which otherwise behave alike
// (CONTRACT 4.3, 4.4).
type placeKind struct {
	postType storage.PostType
	route    string // venues, organizers
	params   []Param
	// load finds the record by ID (slug == "") or by slug in lang.
	load   func(ctx context.Context, db Store, id uint64, lang storage.Lang, slug string) (place, error)
	create func(ctx context.Context, db Store, rq *request) (place, error)
	update func(ctx context.Context, db Store, rq *request, id uint64) error
	trash  func(ctx context.Context, db Store, a storage.Actor, id uint64) error
}

// place is a loaded venue or organizer, ready to render.
type place struct {
	post   *storage.Post
	render func(h *Handler, rq *request, withLD bool) obj
}

func venuePlace(v *storage.Venue, rel *storage.Related) place {
	return place{&v.Post, func(h *Handler, rq *request, ld bool) obj { return h.renderVenue(rq, v, rel, ld) }}
}

func organizerPlace(o *storage.Organizer, rel *storage.Related) place {
	return place{&o.Post, func(h *Handler, rq *request, ld bool) obj { return h.renderOrganizer(rq, o, rel, ld) }}
}

var venueKind = &placeKind{
	postType: storage.TypeVenue, route: "venues", params: venueParams,
	load: func(ctx context.Context, db Store, id uint64, lang storage.Lang, slug string) (place, error) {
		var v *storage.Venue
		var rel *storage.Related
		var err error
		if slug != "" {
			v, rel, err = db.VenueBySlug(ctx, lang, slug)
		} else {
			v, rel, err = db.Venue(ctx, id)
		}
		if err != nil {
			return place{}, err
		}
		return venuePlace(v, rel), nil
	},
	create: func(ctx context.Context, db Store, rq *request) (place, error) {
		v, _, err := db.CreateVenue(ctx, rq.actor, rq.lang, venueInput(rq, rq.vals))
		if err != nil {
			return place{}, err
		}
		return venuePlace(v, nil), nil
	},
	update: func(ctx context.Context, db Store, rq *request, id uint64) error {
		_, err := db.UpdateVenue(ctx, rq.actor, id, venueInput(rq, rq.vals))
		return err
	},
	trash: func(ctx context.Context, db Store, a storage.Actor, id uint64) error {
		_, err := db.TrashVenue(ctx, a, id)
		return err
	},
}

var organizerKind = &placeKind{
	postType: storage.TypeOrganizer, route: "organizers", params: organizerParams,
	load: func(ctx context.Context, db Store, id uint64, lang storage.Lang, slug string) (place, error) {
		var o *storage.Organizer
		var rel *storage.Related
		var err error
		if slug != "" {
			o, rel, err = db.OrganizerBySlug(ctx, lang, slug)
		} else {
			o, rel, err = db.Organizer(ctx, id)
		}
		if err != nil {
			return place{}, err
		}
		return organizerPlace(o, rel), nil
	},
	create: func(ctx context.Context, db Store, rq *request) (place, error) {
		o, _, err := db.CreateOrganizer(ctx, rq.actor, rq.lang, organizerInput(rq, rq.vals))
		if err != nil {
			return place{}, err
		}
		return organizerPlace(o, nil), nil
	},
	update: func(ctx context.Context, db Store, rq *request, id uint64) error {
		_, err := db.UpdateOrganizer(ctx, rq.actor, id, organizerInput(rq, rq.vals))
		return err
	},
	trash: func(ctx context.Context, db Store, a storage.Actor, id uint64) error {
		_, err := db.TrashOrganizer(ctx, a, id)
		return err
	},
}

func (h *Handler) placeCollection(k *placeKind) *route {
	return &route{pattern: "/" + namespace + "/" + k.route, endpoints: []*endpoint{
		{methods: []string{"GET"}, params: placeListParams, handle: h.cached(k.route, h.listPlaces(k))},
		{methods: []string{"POST"}, params: creating(k.params), handle: h.createPlace(k), allowed: need(storage.CapEditPosts)},
	}}
}

func (h *Handler) placeSingle(k *placeKind, kind pathKind) *route {
	rt := &route{pattern: "/" + namespace + "/" + k.route + `/(?P<id>\d+)`, kind: kind, record: func(rq *request) *storage.Post {
		if p, err := h.findPlace(rq, k); err == nil {
			return p.post
		}
		return nil
	}}
	path := idParams
	if kind == pathSlug {
		rt.pattern = "/" + namespace + "/" + k.route + "/by-slug/(?P<slug>[^/]+)"
		path = slugParams
	}
	rt.endpoints = []*endpoint{
		{methods: []string{"GET"}, params: path, handle: h.getPlace(k)},
		{methods: []string{"DELETE"}, params: path, handle: h.deletePlace(k), allowed: onRecord(storage.Actor.CanDelete, storage.CapDeletePosts)},
		{methods: []string{"POST", "PUT", "PATCH"}, params: append(path, optional(k.params)...), handle: h.updatePlace(k), allowed: onRecord(storage.Actor.CanEdit, storage.CapEditPosts)},
	}
	return rt
}

// findPlace loads the venue or organizer a single route addresses.
func (h *Handler) findPlace(rq *request, k *placeKind) (place, error) {
	id, err := strconv.ParseUint(rq.pathID, 10, 64)
	if rq.slug == "" && err != nil { // beyond 2^64-1: matches the route, designates nothing
		return place{}, &storage.Error{Op: storage.OpGet, Resource: k.postType.DocKind(), Err: storage.ErrNotFound}
	}
	return k.load(rq.r.Context(), h.db, id, rq.lang, rq.slug)
}

func (h *Handler) createPlace(k *placeKind) handleFunc {
	return func(w http.ResponseWriter, rq *request) error {
		if err := checkGeo(rq.vals); err != nil {
			return err
		}
		if err := rq.require(storage.CapEditPosts); err != nil {
			return err
		}
		p, err := k.create(rq.r.Context(), h.db, rq)
		if err != nil {
			return err
		}
		w.Header().Set("Location", rq.origin+h.langPart(p.post.Lang)+"/"+namespace+"/"+k.route+"/"+utoa(p.post.ID))
		return h.respondPlace(w, rq, k, p.post.ID, http.StatusCreated)
	}
}

// respondPlace answers a write with the record as it is now (no json_ld).
func (h *Handler) respondPlace(w http.ResponseWriter, rq *request, k *placeKind, id uint64, status int) error {
	h.settle(rq)
	p, err := k.load(rq.r.Context(), h.db, id, "", "")
	if err != nil {
		return err
	}
	h.writeJSON(w, rq, status, p.render(h, rq, false).pick(rq.fields))
	return nil
}

func (h *Handler) getPlace(k *placeKind) handleFunc {
	return func(w http.ResponseWriter, rq *request) error {
		p, err := h.findPlace(rq, k)
		if err != nil {
			return err
		}
		if !rq.actor.CanRead(p.post) {
			return &storage.Error{Op: storage.OpGet, Resource: k.postType.DocKind(), ID: p.post.ID, Err: storage.ErrForbidden}
		}
		h.writeSingle(w, rq, p.render(h, rq, true))
		return nil
	}
}

func (h *Handler) updatePlace(k *placeKind) handleFunc {
	return func(w http.ResponseWriter, rq *request) error {
		if err := checkGeo(rq.vals); err != nil {
			return err
		}
		p, err := h.findPlace(rq, k)
		if err != nil {
			return err
		}
		if !rq.actor.CanEdit(p.post) {
			return storage.ErrForbidden
		}
		if err := k.update(rq.r.Context(), h.db, rq, p.post.ID); err != nil {
			return err
		}
		return h.respondPlace(w, rq, k, p.post.ID, http.StatusOK)
	}
}

func (h *Handler) deletePlace(k *placeKind) handleFunc {
	return func(w http.ResponseWriter, rq *request) error {
		p, err := h.findPlace(rq, k)
		if err != nil {
			return err
		}
		if !rq.actor.CanDelete(p.post) {
			return storage.ErrForbidden
		}
		if err := k.trash(rq.r.Context(), h.db, rq.actor, p.post.ID); err != nil {
			return err
		}
		return h.respondPlace(w, rq, k, p.post.ID, http.StatusOK)
	}
}
