package handlers

import (
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/calendard/calendard/handlers/input"
	"github.com/calendard/calendard/storage"
)

// Field limits of docs/API.md "Limits": the store's, which applies them to every write.
const (
	maxName      = storage.MaxName
	maxTermName  = storage.MaxTermName
	maxRichText  = storage.MaxRichText
	maxShortText = storage.MaxShortText
	maxItems     = storage.MaxItems
)

var statusEnum = []string{"publish", "future", "draft", "pending", "private", "trash"}

func bad(message string) *problem { return &problem{code: "rest_invalid_param", message: message} }

// ruleProblem reports the failure of one of the store's input rules (storage/normalize.go) as the
// parameter's problem.
func ruleProblem(err error) *problem {
	var fe *storage.FieldError
	switch {
	case !errors.As(err, &fe):
		return failed(err)
	case fe.Limit > 0:
		return &problem{code: "rest_too_long", message: fe.Reason}
	}
	return bad(fe.Reason)
}

// parseZone accepts "" (the site zone) or a zone of docs/API.md "Event fields".
func parseZone(_ *request, v any) (any, *problem) {
	s, err := input.String(v)
	if err != nil {
		return nil, typeProblem(err)
	}
	z, err := storage.CleanZone(s)
	if err != nil {
		return nil, ruleProblem(err)
	}
	// The store also reads WordPress's quarter hours (UTC+5.75), which a stored or imported record
	// may hold; a client may send only ".5" (docs/API.md "Event fields"). IANA names hold no dot.
	if strings.Contains(z, ".") && !strings.HasSuffix(z, ".5") {
		return nil, bad("must be an IANA time zone name, UTC, UTC±H, UTC±H:MM or UTC±H.5")
	}
	return z, nil
}

// parseWebsite accepts "" (none) or an absolute URL (storage.CleanWebsite).
func parseWebsite(_ *request, v any) (any, *problem) {
	s, err := input.String(v)
	if err != nil {
		return nil, typeProblem(err)
	}
	if _, err := storage.CleanWebsite(s); err != nil {
		return nil, ruleProblem(err)
	}
	return s, nil
}

// parseImage accepts an attachment ID or an image URL (storage.CleanImageURL); existence and
// upload_files are the write's.
func parseImage(_ *request, v any) (any, *problem) {
	if n, err := input.Int(v); err == nil {
		if n <= 0 {
			return nil, bad("must be an image ID or URL")
		}
		return storage.ImageRef{ID: uint64(n)}, nil
	}
	s, err := input.String(v)
	if err != nil {
		return nil, typeProblem(err)
	}
	if _, err := storage.CleanImageURL(s); err != nil {
		return nil, ruleProblem(err)
	}
	return storage.ImageRef{URL: s}, nil
}

// scalarText is the text of a string or number item.
func scalarText(v any) (string, bool) {
	switch v := v.(type) {
	case string:
		return v, true
	case json.Number:
		s, err := input.String(v)
		return s, err == nil
	}
	return "", false
}

// parseCost reads Appendix D's input: a string, a number, or an array of them (storage.CleanCost).
func parseCost(_ *request, v any) (any, *problem) {
	raw := []any{v}
	if list, ok := v.([]any); ok {
		raw = list
	}
	if len(raw) > maxItems {
		return nil, tooLong(maxItems, "items")
	}
	items := make([]string, 0, len(raw))
	for _, item := range raw {
		s, ok := scalarText(item)
		if !ok {
			return nil, &problem{code: "rest_invalid_type", message: "must be a string, a number or an array of them"}
		}
		items = append(items, s)
	}
	if _, err := storage.CleanCost(items); err != nil {
		return nil, ruleProblem(err)
	}
	return items, nil
}

// termItems reads categories/tags: a CSV string, a number, or an array of IDs and names (docs/API.md "Event fields").
func termItems(_ *request, v any) (any, *problem) {
	list, err := input.List(v)
	if err != nil {
		return nil, typeProblem(err)
	}
	if len(list) > maxItems {
		return nil, tooLong(maxItems, "items")
	}
	items := make([]string, 0, len(list))
	for _, item := range list {
		s, ok := scalarText(item)
		if !ok {
			return nil, &problem{code: "rest_invalid_type", message: "must be term IDs or names"}
		}
		items = append(items, s)
	}
	return items, nil
}

// noneValue reports the inputs that mean "no venue / no organizers" (docs/API.md "Event fields").
func noneValue(v any) bool {
	switch v := v.(type) {
	case string:
		return strings.TrimSpace(v) == "" || strings.TrimSpace(v) == "0"
	case json.Number:
		return v.String() == "0"
	case []any:
		return len(v) == 0
	case map[string]any:
		return len(v) == 0
	}
	return false
}

// linkedID reads a venue or organizer ID, or reports that v is not one.
func linkedID(v any) (uint64, bool) {
	if m, ok := v.(map[string]any); ok {
		if id, ok := m["id"]; ok && !noneValue(id) {
			v = id
		} else {
			return 0, false
		}
	}
	n, err := input.Int(v)
	if err != nil || n <= 0 {
		return 0, false
	}
	return uint64(n), true
}

// parseVenue implements the venue row of docs/API.md "Event fields".
func parseVenue(rq *request, v any) (any, *problem) {
	if list, ok := v.([]any); ok {
		switch len(list) {
		case 0:
			return storage.VenueRef{}, nil
		case 1:
			v = list[0]
		default:
			return nil, bad("an event has at most one venue")
		}
	}
	if noneValue(v) {
		return storage.VenueRef{}, nil
	}
	if id, ok := linkedID(v); ok {
		return storage.VenueRef{ID: id}, nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, bad("must be a venue ID or venue data")
	}
	vals, err := validate(rq, venueParams, m, nil)
	if err == nil {
		err = checkGeo(vals)
	}
	if err != nil {
		return nil, nestedProblem(err)
	}
	return storage.VenueRef{New: venueInput(vals)}, nil
}

// parseOrganizers implements the organizer row of docs/API.md "Event fields".
func parseOrganizers(rq *request, v any) (any, *problem) {
	if noneValue(v) {
		return []storage.OrganizerRef{}, nil
	}
	var list []any
	switch v := v.(type) {
	case map[string]any:
		list = []any{v}
	default:
		l, err := input.List(v)
		if err != nil {
			return nil, typeProblem(err)
		}
		list = l
	}
	if len(list) > maxItems {
		return nil, tooLong(maxItems, "items")
	}
	refs := []storage.OrganizerRef{}
	for _, item := range list {
		if noneValue(item) {
			continue
		}
		if id, ok := linkedID(item); ok {
			refs = append(refs, storage.OrganizerRef{ID: id})
			continue
		}
		m, ok := item.(map[string]any)
		if !ok {
			return nil, bad("must be organizer IDs or organizer data")
		}
		vals, err := validate(rq, organizerParams, m, nil)
		if err != nil {
			return nil, nestedProblem(err)
		}
		refs = append(refs, storage.OrganizerRef{New: organizerInput(vals)})
	}
	return refs, nil
}

// nestedProblem summarises the validation failure of inline venue or organizer data as one problem
// of the event field that carried it.
func nestedProblem(err error) *problem {
	var d *detailed
	if !errors.As(err, &d) {
		return failed(err)
	}
	return bad(d.message)
}

// postInput reads the fields every record type shares; the name field differs per type.
func postInput(vals values, nameField string) storage.PostInput {
	in := storage.PostInput{Author: vals.id("author"), TranslationOf: vals.id("translation_of"),
		Title: vals.str(nameField), Description: vals.str("description")}
	if s := vals.str("status"); s != nil {
		st := storage.Status(*s)
		in.Status = &st
	}
	if img, ok := vals["image"].(storage.ImageRef); ok {
		in.Image = &img
	}
	in.Date = publicationDate(vals)
	return in
}

// parseInstant returns a parser for a date-time evaluated at once in the site zone (`date`) or in UTC
// (`date_utc`).
func parseInstant(utc bool) func(rq *request, v any) (any, *problem) {
	return func(rq *request, v any) (any, *problem) {
		e, err := parseDateTime(v)
		if err != nil {
			return nil, bad(err.Error())
		}
		loc := rq.site.Loc
		if utc {
			loc = time.UTC
		}
		t, err := e.Eval(loc, rq.now)
		if err != nil {
			return nil, bad(err.Error())
		}
		return t, nil
	}
}

// publicationDate resolves `date` and `date_utc`; date_utc wins (docs/API.md "Event fields").
func publicationDate(vals values) *time.Time {
	for _, name := range []string{"date_utc", "date"} {
		if t, ok := vals[name].(time.Time); ok {
			return &t
		}
	}
	return nil
}
