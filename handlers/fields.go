package handlers

import (
	"encoding/json"
	"errors"
	"net/url"
	"path"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/calendard/calendard/handlers/input"
	"github.com/calendard/calendard/storage"
	"github.com/calendard/calendard/storage/datetime"
	"github.com/calendard/calendard/storage/richtext"
)

// Field limits of CONTRACT 10.1.
const (
	maxName      = 1000
	maxTermName  = 200
	maxRichText  = 65535
	maxShortText = 255
	maxURL       = 2048
	maxItems     = 100
)

var statusEnum = []string{"publish", "future", "draft", "pending", "private", "trash"}

func bad(message string) *problem { return &problem{code: "rest_invalid_param", message: message} }

// parseZone accepts "" (the site zone) or a zone of CONTRACT 3.9.1.
func parseZone(_ *request, v any) (any, *problem) {
	s, err := input.String(v)
	if err != nil {
		return nil, typeProblem(err)
	}
	s = strings.TrimSpace(s)
	if s == "" {
		return s, nil
	}
	z, err := datetime.ParseZone(s)
	// ParseZone also reads WordPress's quarter hours (UTC+5.75), which a stored record or the site
	// setting may hold; a client may send only ".5" (CONTRACT 3.9.1). IANA names hold no dot.
	if err != nil || strings.Contains(z.Name, ".") && !strings.HasSuffix(z.Name, ".5") {
		return nil, bad("must be an IANA time zone name, UTC, UTC±H, UTC±H:MM or UTC±H.5")
	}
	return z.Name, nil
}

// absoluteURL reports whether s is an absolute URL with a scheme and a host.
func absoluteURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && u.Scheme != "" && u.Host != ""
}

// parseWebsite accepts "" (none) or an absolute URL of at most 2 048 characters.
func parseWebsite(_ *request, v any) (any, *problem) {
	s, err := input.String(v)
	if err != nil {
		return nil, typeProblem(err)
	}
	s = richtext.ShortText(s)
	switch {
	case utf8.RuneCountInString(s) > maxURL:
		return nil, tooLong(maxURL, "characters")
	case s != "" && !absoluteURL(s):
		return nil, bad("must be an absolute URL")
	}
	return s, nil
}

var imageExtensions = []string{".jpg", ".jpeg", ".jpe", ".gif", ".png", ".bmp", ".tif", ".tiff", ".webp", ".avif", ".ico", ".heic"}

// parseImage implements the form rules of CONTRACT 3.10.5; existence and upload_files are the store's.
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
	s = strings.TrimSpace(s)
	if s == "" {
		return storage.ImageRef{}, nil
	}
	if utf8.RuneCountInString(s) > maxURL {
		return nil, tooLong(maxURL, "characters")
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, bad("must be an image ID or an absolute http(s) URL")
	}
	ext := strings.ToLower(path.Ext(u.Path))
	for _, e := range imageExtensions {
		if ext == e {
			return storage.ImageRef{URL: s}, nil
		}
	}
	return nil, bad("must be the URL of an image file (jpg, png, gif, webp, …)")
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

// parseCost implements Appendix D's input normalisation: a string, a number, or an array of them.
func parseCost(_ *request, v any) (any, *problem) {
	raw := []any{v}
	if list, ok := v.([]any); ok {
		raw = list
	}
	if len(raw) > maxItems {
		return nil, tooLong(maxItems, "items")
	}
	items := []string{}
	for _, item := range raw {
		s, ok := scalarText(item)
		if !ok {
			return nil, &problem{code: "rest_invalid_type", message: "must be a string, a number or an array of them"}
		}
		s = richtext.ShortText(s)
		if utf8.RuneCountInString(s) > maxShortText {
			return nil, tooLong(maxShortText, "characters per item")
		}
		if s != "" {
			items = append(items, s)
		}
	}
	return items, nil
}

// termItems reads categories/tags: a CSV string, a number, or an array of IDs and names (CONTRACT 4.6).
func termItems(rq *request, v any) (any, *problem) {
	list, err := input.List(v)
	if err != nil {
		return nil, typeProblem(err)
	}
	if len(list) > maxItems {
		return nil, tooLong(maxItems, "items")
	}
	items := []string{}
	for _, item := range list {
		s, ok := scalarText(item)
		if !ok {
			return nil, &problem{code: "rest_invalid_type", message: "must be term IDs or names"}
		}
		if s = richtext.Name(s, rq.actor.Can(storage.CapUnfilteredHTML)); s != "" {
			items = append(items, s)
		}
	}
	return items, nil
}

// noneValue reports the inputs that mean "no venue / no organizers" (CONTRACT 4.6).
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

// parseVenue implements the venue row of CONTRACT 4.6.
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
	vals, err := validate(rq, venueParams, m)
	if err == nil {
		err = checkGeo(vals)
	}
	if err != nil {
		return nil, nestedProblem(err)
	}
	return storage.VenueRef{New: venueInput(rq, vals)}, nil
}

// parseOrganizers implements the organizer row of CONTRACT 4.6.
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
		vals, err := validate(rq, organizerParams, m)
		if err != nil {
			return nil, nestedProblem(err)
		}
		refs = append(refs, storage.OrganizerRef{New: organizerInput(rq, vals)})
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
func postInput(rq *request, vals values, nameField string) storage.PostInput {
	unfiltered := rq.actor.Can(storage.CapUnfilteredHTML)
	in := storage.PostInput{Author: vals.id("author"), TranslationOf: vals.id("translation_of")}
	if s := vals.str(nameField); s != nil {
		name := richtext.Name(*s, unfiltered)
		in.Title = &name
	}
	in.Description = richText(vals.str("description"), unfiltered)
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

func richText(s *string, unfiltered bool) *string {
	if s == nil || unfiltered {
		return s
	}
	f := richtext.Filter(*s)
	return &f
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

// publicationDate resolves `date` and `date_utc`; date_utc wins (CONTRACT 3.9.1).
func publicationDate(vals values) *time.Time {
	for _, name := range []string{"date_utc", "date"} {
		if t, ok := vals[name].(time.Time); ok {
			return &t
		}
	}
	return nil
}

func shortText(s *string) *string {
	if s == nil {
		return nil
	}
	t := richtext.ShortText(*s)
	return &t
}
