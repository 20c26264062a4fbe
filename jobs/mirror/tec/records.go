package tec

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"html"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/calendard/calendard/storage"
	"github.com/calendard/calendard/storage/cost"
	"github.com/calendard/calendard/storage/datetime"
	"github.com/calendard/calendard/storage/richtext"
)

// zeroDate is what the reference reports for the UTC dates of an unpublished record (docs/API.md
// "Differences from The Events Calendar").
const zeroDate = "0000-00-00 00:00:00"

// dbLayout is the layout of a DB datetime, the reference's date format.
const dbLayout = "2006-01-02 15:04:05"

// post is what the reference's events, venues and organizers have in common.
type post struct {
	ID          uint64 `json:"id"`
	Status      string `json:"status"`
	Date        string `json:"date"`
	DateUTC     string `json:"date_utc"`
	Modified    string `json:"modified"`
	ModifiedUTC string `json:"modified_utc"`
	URL         string `json:"url"`
	Description string `json:"description"`
	Slug        string `json:"slug"`
	// Image is an object with a url, or false (none).
	Image json.RawMessage `json:"image"`
	// Translations is what a multilingual site (and calendard itself) says of the record's
	// translations: language → ID.
	Translations map[string]uint64 `json:"translations"`
}

// event is an event as the reference's single and list routes send it. Pointer fields are absent
// from some of its partial shapes (Appendix F): absent means "leave as it is".
type event struct {
	post
	Title            string       `json:"title"`
	Excerpt          *string      `json:"excerpt"`
	AllDay           *bool        `json:"all_day"`
	StartDate        string       `json:"start_date"`
	EndDate          string       `json:"end_date"`
	Timezone         *string      `json:"timezone"`
	Cost             *string      `json:"cost"`
	CostDetails      *costDetails `json:"cost_details"`
	Website          *string      `json:"website"`
	ShowMap          *bool        `json:"show_map"`
	ShowMapLink      *bool        `json:"show_map_link"`
	HideFromListings *bool        `json:"hide_from_listings"`
	Sticky           *bool        `json:"sticky"`
	Featured         *bool        `json:"featured"`
	Categories       *[]ref       `json:"categories"`
	Tags             *[]ref       `json:"tags"`
	// Venue is an object, or [] when the event has none.
	Venue     json.RawMessage `json:"venue"`
	Organizer *[]ref          `json:"organizer"`
}

type costDetails struct {
	Values   []string `json:"values"`
	Symbol   string   `json:"currency_symbol"`
	Position string   `json:"currency_position"`
}

// items are the cost's values with the currency symbol where the site shows it, from which our cost
// rules (docs/API.md "Event fields") find the symbol and its position again.
func (c *costDetails) items() []string {
	items := make([]string, len(c.Values))
	for i, v := range c.Values {
		switch {
		case c.Symbol == "":
			items[i] = v
		case c.position() == cost.Postfix:
			items[i] = v + c.Symbol
		default:
			items[i] = c.Symbol + v
		}
	}
	return items
}

// position is the symbol's position in our words: TEC stores "suffix" where we say postfix.
func (c *costDetails) position() string {
	if c.Position == "suffix" {
		return cost.Postfix
	}
	return c.Position
}

// costItems are the items an event's cost is kept as, from the site's formatted cost (text) and its
// cost_details; nil when the site sent neither (unchanged), none when its cost is empty. The store
// keeps items and computes the formatted cost and cost_details from them by our rules (docs/API.md
// "Event fields"), which read some texts otherwise than the site does; so the items are those our rules
// give back as the site has them: the site's text as one item when they give back that very text and
// the site's cost_details from it (`20$`, `Donation`); else the site's values with its symbol when they
// give back its cost_details (`Free – 30€` from values 0, 20, 30 and `€` after them), the formatted
// cost then being ours in our site's currency where the site's has no symbol; else the site's text
// as one item, kept as it is, whatever our rules compute from it (`Free – 10`, whose `Free` they take
// for a currency symbol, docs/IMPORT.md).
func costItems(text *string, details *costDetails) *[]string {
	var t string
	if text != nil {
		t = strings.TrimSpace(html.UnescapeString(*text))
	}
	switch {
	case details == nil || len(details.Values) == 0:
		if text == nil {
			return nil
		}
		if t == "" {
			return &[]string{}
		}
		return &[]string{t}
	case t != "" && sameCost([]string{t}, details) && cost.Format([]string{t}, cost.Parse([]string{t}), "", "") == t:
		return &[]string{t}
	case sameCost(details.items(), details) || t == "":
		items := details.items()
		return &items
	}
	return &[]string{t}
}

// sameCost reports whether our rules compute the site's cost_details from items (a position without a
// symbol says nothing).
func sameCost(items []string, site *costDetails) bool {
	d := cost.Parse(items)
	return slices.Equal(d.Values, site.Values) && d.Symbol == site.Symbol && (d.Symbol == "" || d.Position == site.position())
}

// ref is a linked record or term, of which only the ID matters.
type ref struct {
	ID uint64 `json:"id"`
}

type venue struct {
	post
	Name          string          `json:"venue"`
	Address       *string         `json:"address"`
	City          *string         `json:"city"`
	Country       *string         `json:"country"`
	Province      *string         `json:"province"`
	State         *string         `json:"state"`
	Zip           *string         `json:"zip"`
	Phone         *string         `json:"phone"`
	StateProvince *string         `json:"stateprovince"`
	Website       *string         `json:"website"`
	GeoLat        json.RawMessage `json:"geo_lat"`
	GeoLng        json.RawMessage `json:"geo_lng"`
	ShowMap       *bool           `json:"show_map"`
	ShowMapLink   *bool           `json:"show_map_link"`
}

type organizer struct {
	post
	Name    string  `json:"organizer"`
	Phone   *string `json:"phone"`
	Website *string `json:"website"`
	Email   *string `json:"email"`
}

type term struct {
	ID          uint64 `json:"id"`
	Name        string `json:"name"`
	Slug        string `json:"slug"`
	Description string `json:"description"`
	Parent      uint64 `json:"parent"`
}

// stamp is the version of a term the next run compares: terms carry no modification date, so it is
// their whole content.
func (t *term) stamp() string {
	sum := sha256.Sum256(fmt.Appendf(nil, "%s\x00%s\x00%s\x00%d", t.Name, t.Slug, t.Description, t.Parent))
	return hex.EncodeToString(sum[:16])
}

// modifiedUTC is the record's modification instant in UTC as a DB datetime: modified_utc, or for an
// unpublished record (whose modified_utc the reference reports as zeros) its local modified date in
// the site's zone. The /wp/v2 routes' modified_gmt gives the same value (gmtStamp).
func (p *post) modifiedUTC(site *time.Location) (string, error) {
	if p.ModifiedUTC != "" && p.ModifiedUTC != zeroDate {
		return p.ModifiedUTC, nil
	}
	t, err := time.ParseInLocation(dbLayout, p.Modified, site)
	if err != nil {
		return "", fmt.Errorf("modified %q: %w", p.Modified, err)
	}
	return t.UTC().Format(dbLayout), nil
}

// stamp is what a record's link (storage.Bulk.Link) says of the version of the site's record the
// store holds, written "<modified>|<digest>", then "|recent" and "|embedded" when they hold:
//
//   - modified is the record's modification instant in UTC (modifiedUTC), what /wp/v2's
//     modified_after and modified_gmt speak: the cheap run's mark is the highest one;
//   - digest is the record's digest: what tells whether the record changed. WordPress keeps
//     modification times to the second, so an edit made in the same second as our read of the
//     record leaves modified as it was, and only the content shows it;
//   - recent marks a record read less than Overlap after its modification (by our clock, which may
//     be a little off the site's): an edit in that same second may hide behind an unchanged
//     modified, and the cheap run, which learns only modified times from /wp/v2, fetches such a
//     record again. A later read that finds it unchanged and no longer recent drops the mark.
//   - embedded marks a venue or organizer written from what an event embeds, its own route being
//     closed to the importing user (see run.embeds): that route's 401 or 403 then says nothing new.
//
// A stamp of an earlier version of calendard is modified alone: its record is written again when a
// run next reads it (the complete walk at start-up reads every one), so that what that version read
// differently of the site (an event's website and cost, a draft's slug) becomes what the site has.
type stamp struct {
	modified, digest string
	recent, embedded bool
}

func (s stamp) String() string {
	out := s.modified + "|" + s.digest
	if s.recent {
		out += "|recent"
	}
	if s.embedded {
		out += "|embedded"
	}
	return out
}

func parseStamp(s string) stamp {
	parts := strings.Split(s, "|")
	st := stamp{modified: parts[0]}
	if len(parts) > 1 {
		st.digest = parts[1]
	}
	for _, flag := range parts[min(2, len(parts)):] {
		st.recent = st.recent || flag == "recent"
		st.embedded = st.embedded || flag == "embedded"
	}
	return st
}

// digest is the hex of the first 16 bytes of the SHA-256 of a record as the site answers it, less what
// changes while the record does not: the venue, organizers and terms it embeds are kept as their IDs
// alone (a venue's edit, a term's count of events are theirs, and reach the store through them).
func digest(raw []byte) string {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err == nil {
		delete(obj, "json_ld") // the single routes add it, the lists do not
		for _, field := range []string{"venue", "organizer", "categories", "tags"} {
			if v, ok := obj[field]; ok {
				obj[field] = embeddedIDs(v)
			}
		}
		if b, err := json.Marshal(obj); err == nil { // keys sorted: the same record, the same bytes
			raw = b
		}
	}
	sum := sha256.Sum256(raw)
	return hex.EncodeToString(sum[:16])
}

// embeddedIDs reduces an embedded record or list of them to their IDs.
func embeddedIDs(raw json.RawMessage) json.RawMessage {
	var one ref
	if json.Unmarshal(raw, &one) == nil && one.ID != 0 {
		return strconv.AppendUint(nil, one.ID, 10)
	}
	var many []ref
	if json.Unmarshal(raw, &many) != nil {
		return raw
	}
	ids := make([]uint64, len(many))
	for i, r := range many {
		ids[i] = r.ID
	}
	b, _ := json.Marshal(ids)
	return b
}

// localDate is the record's publication instant read from its local date in the site's zone, for an
// unpublished record whose date_utc the reference reports as zeros (a scheduled one's is in the
// future); nil without one.
func (p *post) localDate(site *time.Location) *time.Time {
	if p.Date == "" || p.Date == zeroDate {
		return nil
	}
	t, err := time.ParseInLocation(dbLayout, p.Date, site)
	if err != nil {
		return nil
	}
	t = t.UTC()
	return &t
}

// gmtStamp turns a /wp/v2 modified_gmt ("2006-01-02T15:04:05") into a stamp.
func gmtStamp(s string) string { return strings.Replace(s, "T", " ", 1) }

// slug is the slug to keep: the site's; for a draft or pending record, to which WordPress gives no slug
// until it is published, "", which the store turns into the record's ID (docs/API.md "Event fields"): a
// slug made from its title here could be the one the site gives a published record later (or has given
// one this run has not reached yet), which would then get another, changing its URL; a published slug
// is the ID only when a title is that very number. Without a slug otherwise (a site that does not send
// one), nil: made from the title.
func (p *post) slug() *string {
	switch {
	case p.Slug != "":
		return &p.Slug
	case p.Status == string(storage.StatusDraft) || p.Status == string(storage.StatusPending):
		return new(string)
	}
	return nil
}

// postInput is the part of every record's input that post gives.
func (p *post) postInput(title string) (storage.PostInput, error) {
	// The site's HTML is outside input whoever imports it: filtered as for a user without
	// unfiltered_html, whatever the importing actor may post.
	desc := richtext.Filter(p.Description)
	in := storage.PostInput{Title: &title, Description: &desc}
	st := storage.Status(p.Status)
	switch st {
	case storage.StatusPublish, storage.StatusFuture, storage.StatusDraft, storage.StatusPending, storage.StatusPrivate:
		in.Status = &st
	default:
		return in, fmt.Errorf("status %q: not a status calendard keeps", p.Status)
	}
	if p.DateUTC != "" && p.DateUTC != zeroDate {
		d, err := time.ParseInLocation(dbLayout, p.DateUTC, time.UTC)
		if err != nil {
			return in, fmt.Errorf("date_utc %q: %w", p.DateUTC, err)
		}
		in.Date = &d
	}
	img, err := imageOf(p.Image)
	if err != nil {
		return in, err
	}
	in.Image = img
	return in, nil
}

// imageOf reads an image field: an object with a url, or false.
func imageOf(raw json.RawMessage) (*storage.ImageRef, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return &storage.ImageRef{}, nil
	}
	var img struct {
		URL string `json:"url"`
		ID  uint64 `json:"id"`
	}
	if err := json.Unmarshal(raw, &img); err != nil {
		return nil, fmt.Errorf("image: %w", err)
	}
	return &storage.ImageRef{URL: img.URL, SourceID: img.ID}, nil
}

// input converts the event into our write shape.
func (e *event) input() (*storage.EventInput, error) {
	pin, err := e.postInput(e.Title)
	if err != nil {
		return nil, err
	}
	if e.Excerpt != nil {
		x := richtext.Filter(*e.Excerpt)
		e.Excerpt = &x
	}
	in := &storage.EventInput{PostInput: pin, Excerpt: e.Excerpt, AllDay: e.AllDay, Timezone: e.Timezone,
		ShowMap: e.ShowMap, ShowMapLink: e.ShowMapLink, HideFromListings: e.HideFromListings, Sticky: e.Sticky, Featured: e.Featured}
	in.Slug = e.slug()
	for _, d := range []struct {
		field, value string
		dst          **datetime.Expr
	}{{"start_date", e.StartDate, &in.Start}, {"end_date", e.EndDate, &in.End}} {
		if d.value == "" || strings.HasPrefix(d.value, "0000-00-00") {
			continue // a draft without dates: the store's own rules decide
		}
		x, err := datetime.Parse(d.value)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", d.field, err)
		}
		*d.dst = &x
	}
	in.Cost = costItems(e.Cost, e.CostDetails)
	if e.Website != nil {
		// The reference escapes the URL for HTML. Without a website of its own an event reports its page
		// URL (docs/API.md "The event object"), and "" once a partial update on the site has reset it: both mean none, which
		// here is the website of an event that never had one (our page URL), whatever was stored before.
		w := html.UnescapeString(*e.Website)
		if w == "" || w == html.UnescapeString(e.URL) {
			in.NoWebsite = true
		} else {
			in.Website = &w
		}
	}
	if e.Categories != nil {
		in.Categories = termIDs(*e.Categories)
	}
	if e.Tags != nil {
		in.Tags = termIDs(*e.Tags)
	}
	if v := bytes.TrimSpace(e.Venue); len(v) > 0 {
		in.Venue = &storage.VenueRef{}
		if v[0] == '{' {
			var r ref
			if err := json.Unmarshal(v, &r); err != nil {
				return nil, fmt.Errorf("venue: %w", err)
			}
			in.Venue.ID = r.ID
		}
	}
	if e.Organizer != nil {
		orgs := make([]storage.OrganizerRef, len(*e.Organizer))
		for i, o := range *e.Organizer {
			orgs[i].ID = o.ID
		}
		in.Organizers = &orgs
	}
	return in, nil
}

// termIDs gives an event's terms as our input's items: all digits is a term ID.
func termIDs(refs []ref) *[]string {
	items := make([]string, len(refs))
	for i, r := range refs {
		items[i] = strconv.FormatUint(r.ID, 10)
	}
	return &items
}

func (v *venue) input() (*storage.VenueInput, error) {
	pin, err := v.postInput(v.Name)
	if err != nil {
		return nil, err
	}
	in := &storage.VenueInput{PostInput: pin, ShowMap: v.ShowMap, ShowMapLink: v.ShowMapLink, Address: v.Address,
		City: v.City, Country: v.Country, Province: v.Province, State: v.State, Zip: v.Zip, Phone: v.Phone,
		StateProvince: v.StateProvince, Website: unescaped(v.Website)}
	in.Slug = v.slug()
	lat, latOK, err := coordinate(v.GeoLat)
	if err != nil {
		return nil, fmt.Errorf("geo_lat: %w", err)
	}
	lng, lngOK, err := coordinate(v.GeoLng)
	if err != nil {
		return nil, fmt.Errorf("geo_lng: %w", err)
	}
	if latOK && lngOK {
		in.Geo = &storage.Geo{Lat: lat, Lng: lng}
	} else {
		in.ClearGeo = true
	}
	return in, nil
}

// coordinate reads a geo field: a number, a numeric string, or absent.
func coordinate(raw json.RawMessage) (float64, bool, error) {
	s := strings.Trim(string(bytes.TrimSpace(raw)), `"`)
	if s == "" || s == "null" {
		return 0, false, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	return f, err == nil, err
}

func (o *organizer) input() (*storage.OrganizerInput, error) {
	pin, err := o.postInput(o.Name)
	if err != nil {
		return nil, err
	}
	in := &storage.OrganizerInput{PostInput: pin, Phone: o.Phone, Website: unescaped(o.Website), Email: o.Email}
	in.Slug = o.slug()
	return in, nil
}

func (t *term) input(tax storage.Taxonomy) *storage.TermInput {
	in := &storage.TermInput{Name: &t.Name, Slug: &t.Slug, Description: &t.Description}
	if tax == storage.TaxCategory {
		in.Parent = &t.Parent
	}
	return in
}

func unescaped(s *string) *string {
	if s == nil {
		return nil
	}
	u := html.UnescapeString(*s)
	return &u
}
