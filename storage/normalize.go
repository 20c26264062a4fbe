package storage

import (
	"net/url"
	"path"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/calendard/calendard/storage/datetime"
	"github.com/calendard/calendard/storage/richtext"
)

// The input rules of a write (docs/API.md "Event fields", "Limits", Appendices C and D) live here, and every write
// applies them, whoever sends it: the API, an importer, a series expansion. A write's input is
// normalised once, at the start of the write: names cleaned, rich text filtered unless the actor may
// post unfiltered HTML, short texts and cost items cleaned, term items cleaned, URLs, images and time
// zones checked. The handlers only coerce request parameters to these inputs; to report a failure
// against the parameter that broke it, among all of a request's failures (docs/API.md "Responses" step 8), they
// call the same checks (CleanWebsite, CleanCost, CleanImageURL, CleanZone) and pass the value on as
// it was sent.

// Limits of docs/API.md "Limits". Lengths are counted in characters of the value as sent.
const (
	MaxName      = 1000
	MaxTermName  = 200
	MaxRichText  = 65535
	MaxShortText = 255
	MaxURL       = 2048
	MaxItems     = 100
	// MaxRecurrenceLine bounds a line of a series' recurrence: an RDATE of a hundred dates fits.
	MaxRecurrenceLine = 4000
)

// tooLong is the failure of a value longer than limit.
func tooLong(field string, limit int, unit string) *FieldError {
	return &FieldError{Field: field, Reason: "must be at most " + strconv.Itoa(limit) + " " + unit, Limit: limit}
}

// CleanWebsite checks and cleans a website: "" (none) or an absolute URL of at most MaxURL characters.
func CleanWebsite(s string) (string, error) {
	s = shortText(s)
	switch {
	case utf8.RuneCountInString(s) > MaxURL:
		return "", tooLong("website", MaxURL, "characters")
	case s != "" && !absoluteURL(s):
		return "", invalid("website", "must be an absolute URL")
	}
	return s, nil
}

func absoluteURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && u.Scheme != "" && u.Host != ""
}

// CleanCost checks and cleans cost items (Appendix D): each cleaned as a short text, empty ones
// dropped.
func CleanCost(items []string) ([]string, error) {
	if len(items) > MaxItems {
		return nil, tooLong("cost", MaxItems, "items")
	}
	out := []string{}
	for _, s := range items {
		s = shortText(s)
		if utf8.RuneCountInString(s) > MaxShortText {
			return nil, tooLong("cost", MaxShortText, "characters per item")
		}
		if s != "" {
			out = append(out, s)
		}
	}
	return out, nil
}

var imageExtensions = []string{".jpg", ".jpeg", ".jpe", ".gif", ".png", ".bmp", ".tif", ".tiff", ".webp", ".avif", ".ico", ".heic"}

// CleanImageURL checks the form of an image URL (docs/API.md "Event fields"): "" (none) or an absolute http(s)
// URL of an image file. Whether the caller may upload it is checked by the write.
func CleanImageURL(s string) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", nil
	}
	if utf8.RuneCountInString(s) > MaxURL {
		return "", tooLong("image", MaxURL, "characters")
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", invalid("image", "must be an image ID or an absolute http(s) URL")
	}
	ext := strings.ToLower(path.Ext(u.Path))
	for _, e := range imageExtensions {
		if ext == e {
			return s, nil
		}
	}
	return "", invalid("image", "must be the URL of an image file (jpg, png, gif, webp, …)")
}

// CleanZone checks an event's time zone and returns its canonical name: "" (the site zone) or any
// zone datetime.ParseZone reads, WordPress's quarter hours included, as a stored record may hold them.
// The API accepts fewer forms from clients (docs/API.md "Event fields"): that rule is the handlers'.
func CleanZone(s string) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", nil
	}
	z, err := datetime.ParseZone(s)
	if err != nil {
		return "", invalid("timezone", "must be an IANA time zone name, UTC, UTC±H, UTC±H:MM or UTC±H.5")
	}
	return z.Name, nil
}

// SingleLine is the rule of every single-line field (a title, a name, a short text such as a phone
// number or a cost): no one types a control character into one, and one kept would reach every
// output (a NUL in JSON, a line break in a header or an iCalendar line). Line breaks and tabs become
// spaces; the other C0 and C1 controls and DEL are dropped. A value that is nothing else is empty.
func SingleLine(s string) string {
	if !strings.ContainsFunc(s, isControl) {
		return s
	}
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\t' || r == '\n' || r == '\r' || r == '\v' || r == '\f':
			return ' '
		case isControl(r):
			return -1
		}
		return r
	}, s)
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f || r >= 0x80 && r <= 0x9f }

// cleanText applies clean to *s when it is set and within limit characters as sent; a nil s stays nil
// (not sent).
func cleanText(s *string, field string, limit int, clean func(string) string) (*string, error) {
	if s == nil {
		return nil, nil
	}
	if utf8.RuneCountInString(*s) > limit {
		return nil, tooLong(field, limit, "characters")
	}
	c := clean(*s)
	return &c, nil
}

// cleanSet applies a check to *s when it is set; a nil s stays nil (not sent).
func cleanSet(s *string, clean func(string) (string, error)) (*string, error) {
	if s == nil {
		return nil, nil
	}
	c, err := clean(*s)
	if err != nil {
		return nil, err
	}
	return &c, nil
}

// cleaners are the cleaning rules of Appendix C for one actor: names lose their tags and rich text is
// filtered unless the actor may post unfiltered HTML.
type cleaners struct{ name, rich func(string) string }

func cleanersFor(a Actor) cleaners {
	if a.Can(CapUnfilteredHTML) {
		return cleaners{name: func(s string) string { return richtext.Name(SingleLine(s), true) }, rich: func(s string) string { return s }}
	}
	return cleaners{name: func(s string) string { return richtext.Name(SingleLine(s), false) }, rich: richtext.Filter}
}

// normalized returns the shared fields cleaned; nameField names the title field in errors.
func (in PostInput) normalized(c cleaners, nameField string) (PostInput, error) {
	var err error
	if in.Title, err = cleanText(in.Title, nameField, MaxName, c.name); err != nil {
		return in, err
	}
	if in.Description, err = cleanText(in.Description, "description", MaxRichText, c.rich); err != nil {
		return in, err
	}
	if in.Image != nil && in.Image.URL != "" {
		ref := *in.Image
		if ref.URL, err = CleanImageURL(ref.URL); err != nil {
			return in, err
		}
		in.Image = &ref
	}
	return in, nil
}

// normalized returns a copy of in with the input rules applied; in itself is left as it was.
func (in *EventInput) normalized(a Actor) (*EventInput, error) {
	out := *in
	c := cleanersFor(a)
	var err error
	if out.PostInput, err = in.PostInput.normalized(c, "title"); err != nil {
		return nil, err
	}
	if out.Excerpt, err = cleanText(in.Excerpt, "excerpt", MaxRichText, c.rich); err != nil {
		return nil, err
	}
	if out.Timezone, err = cleanSet(in.Timezone, CleanZone); err != nil {
		return nil, err
	}
	if in.Cost != nil {
		cost, err := CleanCost(*in.Cost)
		if err != nil {
			return nil, err
		}
		out.Cost = &cost
	}
	if out.Website, err = cleanSet(in.Website, CleanWebsite); err != nil {
		return nil, err
	}
	if in.Recurrence != nil {
		lines := cleanRecurrence(*in.Recurrence)
		if len(lines) > MaxItems {
			return nil, tooLong("recurrence", MaxItems, "lines")
		}
		for _, l := range lines {
			if utf8.RuneCountInString(l) > MaxRecurrenceLine {
				return nil, tooLong("recurrence", MaxRecurrenceLine, "characters a line")
			}
			if _, err := parseLine(l); err != nil {
				return nil, invalid("recurrence", "%s: %v", quoteShort(l), err)
			}
		}
		out.Recurrence = &lines
	}
	for _, terms := range []**[]string{&out.Categories, &out.Tags} {
		if *terms != nil {
			items, err := cleanTermItems(**terms, c)
			if err != nil {
				return nil, err
			}
			*terms = &items
		}
	}
	return &out, nil
}

// cleanTermItems cleans the category or tag items of an event write as names, dropping empty ones.
func cleanTermItems(items []string, c cleaners) ([]string, error) {
	if len(items) > MaxItems {
		return nil, tooLong("terms", MaxItems, "items")
	}
	out := []string{}
	for _, s := range items {
		if s = c.name(s); s != "" {
			out = append(out, s)
		}
	}
	return out, nil
}

// shortText cleans a short text (Appendix C.2): one line, without tags.
func shortText(s string) string { return richtext.ShortText(SingleLine(s)) }

// shortField is a short text field (Appendix C.2) of a write's input, by its name in errors.
type shortField struct {
	name string
	s    **string
}

// shortTexts cleans each set field as a short text, for every caller.
func shortTexts(fields ...shortField) error {
	for _, f := range fields {
		s, err := cleanText(*f.s, f.name, MaxShortText, shortText)
		if err != nil {
			return err
		}
		*f.s = s
	}
	return nil
}

// normalized returns a copy of in with the input rules applied.
func (in *VenueInput) normalized(a Actor) (*VenueInput, error) {
	out := *in
	var err error
	if out.PostInput, err = in.PostInput.normalized(cleanersFor(a), "venue"); err != nil {
		return nil, err
	}
	if err := shortTexts(shortField{"address", &out.Address}, shortField{"city", &out.City}, shortField{"country", &out.Country},
		shortField{"province", &out.Province}, shortField{"state", &out.State}, shortField{"zip", &out.Zip},
		shortField{"phone", &out.Phone}, shortField{"stateprovince", &out.StateProvince}); err != nil {
		return nil, err
	}
	if out.Website, err = cleanSet(in.Website, CleanWebsite); err != nil {
		return nil, err
	}
	// Written as the range a position is in, so that NaN, which no comparison holds for, is outside it.
	if g := in.Geo; g != nil && !(g.Lat >= -90 && g.Lat <= 90 && g.Lng >= -180 && g.Lng <= 180) {
		return nil, invalid("geo_lat", "%g, %g is not a position on Earth", g.Lat, g.Lng)
	}
	return &out, nil
}

// normalized returns a copy of in with the input rules applied.
func (in *OrganizerInput) normalized(a Actor) (*OrganizerInput, error) {
	out := *in
	var err error
	if out.PostInput, err = in.PostInput.normalized(cleanersFor(a), "organizer"); err != nil {
		return nil, err
	}
	if err := shortTexts(shortField{"phone", &out.Phone}, shortField{"email", &out.Email}); err != nil {
		return nil, err
	}
	if out.Website, err = cleanSet(in.Website, CleanWebsite); err != nil {
		return nil, err
	}
	return &out, nil
}

// normalized returns a copy of in with the input rules applied.
func (in *TermInput) normalized(a Actor) (*TermInput, error) {
	out := *in
	c := cleanersFor(a)
	var err error
	if out.Name, err = cleanText(in.Name, "name", MaxTermName, c.name); err != nil {
		return nil, err
	}
	if out.Description, err = cleanText(in.Description, "description", MaxRichText, c.rich); err != nil {
		return nil, err
	}
	return &out, nil
}
