package handlers

import (
	"context"
	"strconv"

	"github.com/calendard/calendard/storage"
)

// venueParams is the venue field table (SEED 2.3, docs/API.md "Venue and organizer fields").
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

// organizerParams is the organizer field table (SEED 2.4, docs/API.md "Venue and organizer fields").
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

func venueInput(vals values) *storage.VenueInput {
	in := &storage.VenueInput{PostInput: postInput(vals, "venue")}
	in.ShowMap, in.ShowMapLink = vals.boolean("show_map"), vals.boolean("show_map_link")
	in.Address, in.City, in.Country = vals.str("address"), vals.str("city"), vals.str("country")
	in.Province, in.State, in.Zip = vals.str("province"), vals.str("state"), vals.str("zip")
	in.Phone, in.StateProvince = vals.str("phone"), vals.str("stateprovince")
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

// checkGeo reports the coordinate sent without its partner (docs/API.md "Venue and organizer fields").
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

func organizerInput(vals values) *storage.OrganizerInput {
	in := &storage.OrganizerInput{PostInput: postInput(vals, "organizer")}
	in.Phone, in.Email = vals.str("phone"), vals.str("email")
	in.Website = vals.str("website")
	return in
}

func venueRecord(v *storage.Venue, rel *storage.Related) record {
	return record{post: &v.Post, render: func(h *Handler, rq *request, ld bool) obj { return h.renderVenue(rq, v, rel, ld) }}
}

func organizerRecord(o *storage.Organizer, rel *storage.Related) record {
	return record{post: &o.Post, render: func(h *Handler, rq *request, ld bool) obj { return h.renderOrganizer(rq, o, rel, ld) }}
}

// venueKind and organizerKind describe the venue and organizer routes (docs/API.md "Venues and organizers"): an unknown
// ID or slug is a parameter failure.
var venueKind = &recordKind{
	postType: storage.TypeVenue, route: "venues", params: venueParams,
	listParams: placeListParams, listQuery: newPlaceQuery, list: (*Handler).listPlaces, check: checkGeo, lookupIsParam: true,
	load: func(ctx context.Context, db Store, id uint64, lang storage.Lang, slug string) (record, error) {
		v, rel, err := loadBy(ctx, id, lang, slug, db.Venue, db.VenueBySlug)
		if err != nil {
			return record{}, err
		}
		return venueRecord(v, rel), nil
	},
	create: func(ctx context.Context, db Store, rq *request) (*storage.Post, error) {
		v, _, err := db.CreateVenue(ctx, rq.actor, rq.lang, venueInput(rq.vals))
		if err != nil {
			return nil, err
		}
		return &v.Post, nil
	},
	update: func(ctx context.Context, db Store, rq *request, id uint64) error {
		_, err := db.UpdateVenue(ctx, rq.actor, id, venueInput(rq.vals))
		return err
	},
	trash: func(ctx context.Context, db Store, rq *request, id uint64) (uint64, error) {
		_, err := db.TrashVenue(ctx, rq.actor, id)
		return id, err
	},
}

var organizerKind = &recordKind{
	postType: storage.TypeOrganizer, route: "organizers", params: organizerParams,
	listParams: placeListParams, listQuery: newPlaceQuery, list: (*Handler).listPlaces, lookupIsParam: true,
	load: func(ctx context.Context, db Store, id uint64, lang storage.Lang, slug string) (record, error) {
		o, rel, err := loadBy(ctx, id, lang, slug, db.Organizer, db.OrganizerBySlug)
		if err != nil {
			return record{}, err
		}
		return organizerRecord(o, rel), nil
	},
	create: func(ctx context.Context, db Store, rq *request) (*storage.Post, error) {
		o, _, err := db.CreateOrganizer(ctx, rq.actor, rq.lang, organizerInput(rq.vals))
		if err != nil {
			return nil, err
		}
		return &o.Post, nil
	},
	update: func(ctx context.Context, db Store, rq *request, id uint64) error {
		_, err := db.UpdateOrganizer(ctx, rq.actor, id, organizerInput(rq.vals))
		return err
	},
	trash: func(ctx context.Context, db Store, rq *request, id uint64) (uint64, error) {
		_, err := db.TrashOrganizer(ctx, rq.actor, id)
		return id, err
	},
}
