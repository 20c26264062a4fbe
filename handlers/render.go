package handlers

import (
	"cmp"
	"net/url"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/calendard/calendard/storage"
	"github.com/calendard/calendard/storage/cost"
	"github.com/calendard/calendard/storage/datetime"
	"github.com/calendard/calendard/storage/richtext"
)

const isoLayout = "2006-01-02T15:04:05-07:00"

// ldWords bounds json_ld descriptions (docs/API.md "The event object").
const ldWords = 55

func itoa(n int64) string  { return strconv.FormatInt(n, 10) }
func utoa(n uint64) string { return strconv.FormatUint(n, 10) }

// langPart is lp(r) of docs/API.md "Responses".
func (h *Handler) langPart(l storage.Lang) string {
	if l == h.cfg.DefaultLang {
		return ""
	}
	return "/" + string(l)
}

func (h *Handler) restURL(rq *request, p *storage.Post) string {
	return rq.origin + h.langPart(p.Lang) + "/" + namespace + "/" + p.Type.String() + "s/" + utoa(p.ID)
}

func (h *Handler) pageURL(rq *request, p *storage.Post) string {
	return rq.origin + h.langPart(p.Lang) + "/" + p.Type.String() + "/" + p.Slug + "/"
}

func globalID(rq *request, id uint64) string {
	u, err := url.Parse(rq.origin)
	if err != nil {
		return "?id=" + utoa(id)
	}
	return u.Hostname() + strings.TrimSuffix(u.Path, "/") + "?id=" + utoa(id)
}

func dbTime(t time.Time, loc *time.Location) string { return t.In(loc).Format(datetime.DB) }

func dateDetails(wall string) obj {
	// wall is a DB datetime: YYYY-MM-DD HH:MM:SS.
	return obj{{"year", wall[0:4]}, {"month", wall[5:7]}, {"day", wall[8:10]}, {"hour", wall[11:13]},
		{"minutes", wall[14:16]}, {"seconds", wall[17:19]}}
}

// postHead renders the members every record starts with.
func (h *Handler) postHead(rq *request, p *storage.Post) obj {
	site := h.db.SiteZone().Loc
	return obj{
		{"id", p.ID},
		{"author", utoa(p.Author)},
		{"status", string(p.Status)},
		{"date", dbTime(p.Date, site)},
		{"date_utc", dbTime(p.Date, time.UTC)},
		{"modified", dbTime(p.Modified, site)},
		{"modified_utc", dbTime(p.Modified, time.UTC)},
		{"url", h.pageURL(rq, p)},
	}
}

func (h *Handler) image(rel *storage.Related, id uint64) (obj, bool) {
	img := rel.Images[id]
	if id == 0 || img == nil {
		return nil, false
	}
	u, _ := url.Parse(img.URL)
	ext := ""
	if u != nil {
		ext = strings.ToLower(strings.TrimPrefix(path.Ext(u.Path), "."))
	}
	return obj{{"url", img.URL}, {"id", img.ID}, {"extension", ext}}, true
}

// translations lists the other members of p's group that the caller may read (docs/API.md "Responses").
func translations(rq *request, p *storage.Post, rel *storage.Related) obj {
	out := obj{}
	for _, m := range rel.Groups[p.Group] {
		if m.ID != p.ID && m.Status != storage.StatusTrash && rq.actor.CanRead(&m) {
			out = append(out, member{string(m.Lang), m.ID})
		}
	}
	return out
}

func globalTail(rq *request, p *storage.Post, rel *storage.Related) obj {
	gid := globalID(rq, p.ID)
	return obj{{"global_id", gid}, {"global_id_lineage", []string{gid}}}
}

func (h *Handler) renderEvent(rq *request, e *storage.Event, rel *storage.Related, withLD bool) obj {
	site := h.db.SiteZone().Loc
	zone, err := datetime.ParseZone(e.Timezone)
	if err != nil {
		zone = h.db.SiteZone()
	}
	pageURL := h.pageURL(rq, &e.Post)
	head := h.postHead(rq, &e.Post)
	o := obj{head[0]}
	o = append(o, globalTail(rq, &e.Post, rel)...)
	o = append(o, head[1:]...)
	o = append(o,
		member{"rest_url", h.restURL(rq, &e.Post)},
		member{"title", e.Title},
		member{"description", richtext.Render(e.Description)},
		member{"excerpt", richtext.Render(e.Excerpt)},
		member{"slug", e.Slug},
	)
	if img, ok := h.image(rel, e.ImageID); ok {
		o = append(o, member{"image", img})
	} else {
		o = append(o, member{"image", false})
	}
	details := cost.Parse(e.Cost)
	values := details.Values
	if values == nil {
		values = []string{}
	}
	website := pageURL
	if e.Website != nil {
		website = *e.Website
	}
	o = append(o,
		member{"all_day", e.AllDay},
		member{"start_date", e.Start},
		member{"start_date_details", dateDetails(e.Start)},
		member{"end_date", e.End},
		member{"end_date_details", dateDetails(e.End)},
		member{"utc_start_date", dbTime(e.StartUTC, time.UTC)},
		member{"utc_start_date_details", dateDetails(dbTime(e.StartUTC, time.UTC))},
		member{"utc_end_date", dbTime(e.EndUTC, time.UTC)},
		member{"utc_end_date_details", dateDetails(dbTime(e.EndUTC, time.UTC))},
		member{"timezone", e.Timezone},
		member{"timezone_abbr", zone.Abbr(e.StartUTC)},
		member{"cost", cost.Format(e.Cost, details, h.cfg.CurrencySymbol, h.cfg.CurrencyPosition)},
		member{"cost_details", obj{{"currency_symbol", details.Symbol}, {"currency_code", ""},
			{"currency_position", details.Position}, {"values", values}}},
		member{"website", website},
		member{"show_map", e.ShowMap},
		member{"show_map_link", e.ShowMapLink},
		member{"hide_from_listings", e.HideFromListings},
		member{"sticky", e.Sticky},
		member{"featured", e.Featured},
		member{"categories", h.embeddedTerms(rq, e.Categories, rel)},
		member{"tags", h.embeddedTerms(rq, e.Tags, rel)},
	)
	var venue any = []any{}
	if v := rel.Venues[e.VenueID]; v != nil {
		venue = h.renderVenue(rq, v, rel, withLD)
	}
	organizers := []obj{}
	for _, id := range e.OrganizerIDs {
		if org := rel.Organizers[id]; org != nil {
			organizers = append(organizers, h.renderOrganizer(rq, org, rel, withLD))
		}
	}
	o = append(o, member{"venue", venue}, member{"organizer", organizers}, member{"custom_fields", []any{}})
	if len(e.Recurrence) > 0 {
		o = append(o, member{"recurrence", e.Recurrence})
	}
	if e.Parent != 0 {
		o = append(o, member{"post_parent", e.Parent})
	}
	if withLD {
		o = append(o, member{"json_ld", h.eventLD(e, rel, venue, organizers, pageURL, zone, site)})
	}
	return append(o, member{"language", string(e.Lang)}, member{"translations", translations(rq, &e.Post, rel)})
}

func (h *Handler) eventLD(e *storage.Event, rel *storage.Related, venue any, organizers []obj, pageURL string,
	zone datetime.Zone, site *time.Location) obj {
	ld := obj{{"@context", "http://schema.org"}, {"@type", "Event"}, {"name", richtext.StripTags(e.Title)},
		{"description", ldDescription(e.Excerpt, e.Description)}}
	if img, ok := rel.Images[e.ImageID]; ok && img != nil {
		ld = append(ld, member{"image", img.URL})
	}
	ld = append(ld,
		member{"url", pageURL},
		member{"eventAttendanceMode", "https://schema.org/OfflineEventAttendanceMode"},
		member{"eventStatus", "https://schema.org/EventScheduled"},
		member{"startDate", e.StartUTC.In(zone.Loc).Format(isoLayout)},
		member{"endDate", e.EndUTC.In(zone.Loc).Format(isoLayout)},
	)
	if v, ok := venue.(obj); ok {
		if loc, ok := v.get("json_ld"); ok {
			ld = append(ld, member{"location", loc})
		}
	}
	if len(organizers) > 0 {
		if org, ok := organizers[0].get("json_ld"); ok {
			ld = append(ld, member{"organizer", org})
		}
	}
	details := cost.Parse(e.Cost)
	if price, ok := cost.Price(e.Cost, details, h.cfg.CurrencySymbol, h.cfg.CurrencyPosition); ok {
		d := e.Date.In(site)
		validFrom := time.Date(d.Year(), d.Month(), d.Day(), 0, 0, 0, 0, site)
		ld = append(ld, member{"offers", obj{{"@type", "Offer"}, {"price", price},
			{"priceCurrency", h.cfg.CurrencyCode}, {"url", pageURL}, {"category", "primary"},
			{"availability", "inStock"}, {"validFrom", validFrom.Format(isoLayout)}}})
	}
	return append(ld, member{"performer", "Organization"})
}

func ldDescription(excerpt, description string) string {
	if strings.TrimSpace(excerpt) != "" {
		return richtext.Summary(excerpt, ldWords)
	}
	return richtext.Summary(description, ldWords)
}

func appendNonEmpty(o obj, key, val string) obj {
	if val != "" {
		o = append(o, member{key, val})
	}
	return o
}

// placeHead renders the members venues and organizers start with (docs/API.md "The venue and organizer objects"): the common
// head, the name under nameKey, description, slug and image; it returns the image for json_ld.
func (h *Handler) placeHead(rq *request, p *storage.Post, nameKey string, rel *storage.Related) (o, img obj, hasImg bool) {
	o = h.postHead(rq, p)
	o = append(o, member{nameKey, p.Title})
	o = appendNonEmpty(o, "description", richtext.Render(p.Description))
	o = append(o, member{"slug", p.Slug})
	if img, hasImg = h.image(rel, p.ImageID); hasImg {
		o = append(o, member{"image", img})
	}
	return o, img, hasImg
}

func (h *Handler) renderVenue(rq *request, v *storage.Venue, rel *storage.Related, withLD bool) obj {
	o, img, hasImg := h.placeHead(rq, &v.Post, "venue", rel)
	for _, f := range [][2]string{{"address", v.Address}, {"city", v.City}, {"country", v.Country},
		{"province", v.Province}, {"state", v.State}, {"zip", v.Zip}, {"phone", v.Phone},
		{"website", v.Website}, {"stateprovince", v.StateProvince}} {
		o = appendNonEmpty(o, f[0], f[1])
	}
	if v.Geo != nil {
		o = append(o, member{"geo_lat", v.Geo.Lat}, member{"geo_lng", v.Geo.Lng})
	}
	if withLD {
		ld := obj{{"@type", "Place"}, {"name", richtext.StripTags(v.Title)}, {"description", richtext.Summary(v.Description, ldWords)}}
		if hasImg {
			ld = append(ld, member{"image", img[0].val})
		}
		region := cmp.Or(v.StateProvince, v.State, v.Province)
		addr := obj{{"@type", "PostalAddress"}}
		for _, f := range [][2]string{{"streetAddress", v.Address}, {"addressLocality", v.City},
			{"addressRegion", region}, {"postalCode", v.Zip}, {"addressCountry", v.Country}} {
			addr = appendNonEmpty(addr, f[0], f[1])
		}
		ld = append(ld, member{"url", h.pageURL(rq, &v.Post)}, member{"address", addr})
		if v.Geo != nil {
			ld = append(ld, member{"geo", obj{{"@type", "GeoCoordinates"}, {"latitude", v.Geo.Lat}, {"longitude", v.Geo.Lng}}})
		}
		ld = append(ld, member{"telephone", v.Phone}, member{"sameAs", v.Website})
		o = append(o, member{"json_ld", ld})
	}
	o = append(o, member{"show_map", v.ShowMap}, member{"show_map_link", v.ShowMapLink})
	o = append(o, globalTail(rq, &v.Post, rel)...)
	return append(o, member{"language", string(v.Lang)}, member{"translations", translations(rq, &v.Post, rel)})
}

func (h *Handler) renderOrganizer(rq *request, g *storage.Organizer, rel *storage.Related, withLD bool) obj {
	o, img, hasImg := h.placeHead(rq, &g.Post, "organizer", rel)
	o = appendNonEmpty(o, "phone", g.Phone)
	o = appendNonEmpty(o, "website", g.Website)
	o = appendNonEmpty(o, "email", g.Email)
	if withLD {
		ld := obj{{"@type", "Person"}, {"name", richtext.StripTags(g.Title)}, {"description", richtext.Summary(g.Description, ldWords)}}
		if hasImg {
			ld = append(ld, member{"image", img[0].val})
		}
		ld = append(ld, member{"url", g.Website}, member{"telephone", g.Phone}, member{"email", g.Email},
			member{"sameAs", g.Website})
		o = append(o, member{"json_ld", ld})
	}
	o = append(o, globalTail(rq, &g.Post, rel)...)
	return append(o, member{"language", string(g.Lang)}, member{"translations", translations(rq, &g.Post, rel)})
}

// termKind describes a taxonomy's route and naming.
type termKind struct {
	tax      storage.Taxonomy
	route    string // categories, tags
	taxonomy string // the `taxonomy` value
	manage   storage.Cap
}

var (
	categoryKind = &termKind{storage.TaxCategory, "categories", "calendar_events_cat", storage.CapManageCategories}
	tagKind      = &termKind{storage.TaxTag, "tags", "post_tag", storage.CapManageTags}
)

func kindOf(tax storage.Taxonomy) *termKind {
	if tax == storage.TaxCategory {
		return categoryKind
	}
	return tagKind
}

func (h *Handler) termRESTURL(rq *request, k *termKind, id uint64) string {
	return rq.ns() + "/" + k.route + "/" + utoa(id)
}

// termPageURL is the term page URL of docs/API.md "Responses": categories carry their ancestors' slugs.
func termPageURL(rq *request, t *storage.Term, rel *storage.Related) string {
	if t.Taxonomy == storage.TaxTag {
		return rq.origin + "/tag/" + t.Slug + "/"
	}
	parts := []string{t.Slug}
	seen := map[uint64]bool{t.ID: true}
	for p := rel.Terms[t.Parent]; p != nil && !seen[p.ID]; p = rel.Terms[p.Parent] {
		seen[p.ID] = true
		parts = append(parts, p.Slug)
	}
	slices.Reverse(parts)
	return rq.origin + "/events/category/" + strings.Join(parts, "/") + "/"
}

func (h *Handler) termURLs(rq *request, t *storage.Term) obj {
	k := kindOf(t.Taxonomy)
	urls := obj{{"self", h.termRESTURL(rq, k, t.ID)}, {"collection", rq.ns() + "/" + k.route}}
	if t.Parent > 0 {
		urls = append(urls, member{"up", h.termRESTURL(rq, k, t.Parent)})
	}
	return urls
}

func (h *Handler) renderTerm(rq *request, t *storage.Term, rel *storage.Related) obj {
	k := kindOf(t.Taxonomy)
	o := obj{{"id", t.ID}, {"count", t.Count}, {"description", t.Description}, {"name", t.Name},
		{"slug", t.Slug}, {"taxonomy", k.taxonomy}}
	if t.Taxonomy == storage.TaxCategory {
		o = append(o, member{"parent", t.Parent})
	}
	return append(o, member{"meta", []any{}}, member{"url", termPageURL(rq, t, rel)}, member{"urls", h.termURLs(rq, t)})
}

// sortedTerms returns the terms of ids found in rel, sorted by name then ID, as the reference embeds
// them.
func sortedTerms(ids []uint64, rel *storage.Related) []*storage.Term {
	var terms []*storage.Term
	for _, id := range ids {
		if t := rel.Terms[id]; t != nil {
			terms = append(terms, t)
		}
	}
	slices.SortFunc(terms, func(a, b *storage.Term) int {
		return cmp.Or(cmp.Compare(strings.ToLower(a.Name), strings.ToLower(b.Name)), cmp.Compare(a.ID, b.ID))
	})
	return terms
}

// embeddedTerms renders an event's terms as the reference embeds them.
func (h *Handler) embeddedTerms(rq *request, ids []uint64, rel *storage.Related) []obj {
	out := []obj{}
	for _, t := range sortedTerms(ids, rel) {
		out = append(out, obj{{"id", t.ID}, {"name", t.Name}, {"slug", t.Slug}, {"term_group", 0},
			{"term_taxonomy_id", t.ID}, {"taxonomy", kindOf(t.Taxonomy).taxonomy}, {"description", t.Description},
			{"parent", t.Parent}, {"count", t.Count}, {"filter", "raw"}, {"urls", h.termURLs(rq, t)}})
	}
	return out
}
