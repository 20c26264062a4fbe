package handlers

import (
	"cmp"
	"net/http"
	"net/url"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/calendard/calendard/storage"
	"github.com/calendard/calendard/storage/datetime"
	"github.com/calendard/calendard/storage/ical"
	"github.com/calendard/calendard/storage/richtext"
)

// The iCalendar feed, GET {ns}/events.ics (an extension of the contract, additive): the
// events an events-list request names, as one RFC 5545 calendar that Google Calendar, Apple Calendar
// and Outlook subscribe to. It takes the list's parameters but its paging (eventFilter builds both
// queries), has no pages, and answers like the lists through the list cache; calendar apps poll it,
// so it carries validators and answers 304 to a client that has it already.
const (
	// MaxFeedEvents bounds the events of one feed, the first of the list's order; X-TEC-Total says how
	// many matched.
	MaxFeedEvents = 5000
	feedPattern   = "/" + namespace + "/events.ics"
	// feedRoute names the feed's answers in the list cache.
	feedRoute = "events.ics"
	// feedMedia is the feed's media type, as /doc names it.
	feedMedia = "text/calendar"
	// feedProdID is the feed's PRODID: the product, not its version, so that an upgrade that changes
	// nothing else does not change every subscriber's ETag.
	feedProdID = "-//calendard//calendard//EN"
)

// sequenceEpoch is the instant from which SEQUENCE counts seconds (see vevent).
var sequenceEpoch = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// feedRenders is how many feeds are rendered at a time: half the cores, at least one. A feed the list
// cache does not hold costs 125 to 380 ms of a core and 3 MB at MaxFeedEvents; eight clients asking
// for new ones took the p99 of every other request from 3 to 161 ms on two cores. Waiting for a slot,
// a feed takes none of the cores the other requests need; a client waits at most its deadline.
func feedRenders() int { return max(1, runtime.GOMAXPROCS(0)/2) }

func (h *Handler) eventFeed(w http.ResponseWriter, rq *request) error {
	ctx := rq.r.Context()
	f, err := h.eventFilter(rq, 0, MaxFeedEvents)
	if err != nil {
		return err
	}
	select {
	case h.feedSlots <- struct{}{}:
		defer func() { <-h.feedSlots }()
	case <-ctx.Done():
		return ctx.Err()
	}
	res, err := h.index.Events(ctx, f)
	if err != nil {
		return err
	}
	// One read transaction for the whole feed (tens of milliseconds at MaxFeedEvents): a feed must not
	// mix snapshots, and bbolt's writers do not wait for readers.
	loaded, rel, err := h.db.Load(ctx, storage.TypeEvent, res.IDs)
	if err != nil {
		return err
	}
	name, err := h.feedName(rq)
	if err != nil {
		return err
	}
	cal := &ical.Calendar{ProdID: feedProdID, Name: name, Events: make([]ical.Event, 0, len(loaded.Events))}
	if !rq.site.Fixed() {
		cal.TimeZone = rq.site.Name
	}
	host := rq.origin
	if u, err := url.Parse(rq.origin); err == nil {
		host = u.Hostname() // as in global_id
	}
	series, err := h.feedSeries(rq, loaded.Events, rel, host)
	if err != nil {
		return err
	}
	for _, e := range loaded.Events {
		if s := series[e.ID]; s != nil {
			cal.Events = append(cal.Events, s.ev)
			continue
		}
		var at time.Time // RECURRENCE-ID when e overrides an instance of its parent's rule
		if s := series[e.Parent]; s != nil {
			var ok bool
			if at, ok = s.instances[e.ID]; ok && s.givesAsIs(e, at, h.db.SiteZone()) {
				continue
			}
		}
		ev := h.vevent(rq, e, rel, host)
		if !at.IsZero() {
			ev.UID, ev.RecurrenceID = utoa(e.Parent)+"@"+host, at
		}
		cal.Events = append(cal.Events, ev)
	}
	buf := getBuffer()
	defer putBuffer(buf)
	if err := ical.Encode(buf, cal); err != nil {
		return err
	}
	etag := etagOf(buf.Bytes())
	hd := w.Header()
	hd.Set("ETag", etag)
	hd.Set("Last-Modified", h.feedModified(rq, etag).Format(http.TimeFormat))
	hd["X-TEC-Total"] = []string{strconv.Itoa(res.Total)} // as the lists spell it
	markTypoTolerant(w, res)
	h.sendAs(w, rq, http.StatusOK, feedMedia+"; charset=utf-8", buf.Bytes())
	return nil
}

// feedModified is the feed's Last-Modified: when this server first answered the feed's current body
// to this request's URL, origin and caller, as the list cache remembers it.
//
// The newest `modified` of the events shown would not do: an event that leaves the feed (trashed,
// made a draft, moved out of the dates or filters, or past as the window moves at midnight) changes
// no event that stays, and a client that sends only If-Modified-Since would keep it forever. So the
// time moves whenever the body does, and only then: an answer computed again with the same ETag (the
// cache drops answers on every write) keeps the time of the previous one, and a new body gets the
// current time, or a second past the previous time when the clock has not passed it (a frozen clock,
// two changes within a second). Without a previous answer (a restart, an answer evicted) it is the
// current time, which is never earlier than the body's: such a client gets the body once more.
func (h *Handler) feedModified(rq *request, etag string) time.Time {
	now := rq.now.UTC().Truncate(time.Second)
	prev := h.lists.Peek(listKey(feedRoute, rq))
	if prev == nil {
		return now
	}
	last, err := http.ParseTime(prev.Header.Get("Last-Modified"))
	switch {
	case err != nil:
		return now
	case prev.Header.Get("ETag") == etag:
		return last
	case !now.After(last):
		return last.Add(time.Second)
	}
	return now
}

// feedName is X-WR-CALNAME, the name a calendar app shows for the subscription: the site name, and
// what the filters that name things choose (search words, categories, tags, venues, organizers), so
// that two subscriptions to one site can be told apart. A venue or organizer the caller may not read
// is not named.
func (h *Handler) feedName(rq *request) (string, error) {
	ctx := rq.r.Context()
	q := rq.query.(*eventQuery)
	var parts []string
	if q.Search != "" {
		parts = append(parts, "“"+q.Search+"”")
	}
	for _, f := range []struct {
		ids []uint64
		tax storage.Taxonomy
	}{{q.categories, storage.TaxCategory}, {q.Tags, storage.TaxTag}} {
		for _, id := range f.ids {
			t, _, err := h.db.Term(ctx, f.tax, id)
			if err != nil {
				return "", err
			}
			parts = append(parts, richtext.PlainText(t.Name))
		}
	}
	for _, f := range []struct {
		ids []uint64
		t   storage.PostType
	}{{q.Venues, storage.TypeVenue}, {q.Orgs, storage.TypeOrganizer}} {
		if f.ids == nil {
			continue
		}
		recs, _, err := h.db.Load(ctx, f.t, f.ids)
		if err != nil {
			return "", err
		}
		posts := make([]*storage.Post, 0, len(f.ids))
		for _, v := range recs.Venues {
			posts = append(posts, &v.Post)
		}
		for _, o := range recs.Organizers {
			posts = append(posts, &o.Post)
		}
		for _, p := range posts {
			if rq.actor.CanRead(p) {
				parts = append(parts, richtext.PlainText(p.Title))
			}
		}
	}
	name := h.cfg.SiteName
	if len(parts) > 0 && name != "" {
		name += ": "
	}
	return name + strings.Join(parts, ", "), nil
}

// vevent is the VEVENT of e, with the same venue, organizers and terms its list item shows.
//
// UID is "<id>@<host>", host the origin's (docs/API.md "Routes": the configured base URL's, else the
// request's), as in global_id: an event ID is unique across languages, and a subscription is always
// read through one origin. DTSTAMP and LAST-MODIFIED are both the event's `modified`: RFC 5545 has
// DTSTAMP the time the object was written, but a feed that stamped every event with the time of the
// request would be a new body on every poll, and no ETag would ever match. SEQUENCE is `modified` in
// seconds since 2000, which grows with every write of the event (the store keeps no revision count)
// and fits the 32-bit integers some clients read it into until 2068.
func (h *Handler) vevent(rq *request, e *storage.Event, rel *storage.Related, host string) ical.Event {
	ev := ical.Event{
		UID:          utoa(e.ID) + "@" + host,
		Stamp:        e.Modified,
		LastModified: e.Modified,
		Sequence:     int(e.Modified.Sub(sequenceEpoch) / time.Second),
		Summary:      richtext.PlainText(e.Title),
		Description:  richtext.PlainText(e.Description),
		URL:          h.pageURL(rq, &e.Post),
		AllDay:       e.AllDay,
		Recurrence:   e.Recurrence,
	}
	ev.Start, ev.End = feedTimes(e, h.db.SiteZone())
	if v := rel.Venues[e.VenueID]; v != nil {
		ev.Location = location(v)
		if v.Geo != nil {
			ev.Geo = &ical.Geo{Lat: v.Geo.Lat, Lng: v.Geo.Lng}
		}
	}
	// RFC 5545 allows one ORGANIZER: the first, as json_ld names the first.
	for _, id := range e.OrganizerIDs {
		if o := rel.Organizers[id]; o != nil {
			ev.Organizer = ical.Organizer{Name: richtext.PlainText(o.Title), Email: o.Email}
			break
		}
	}
	for _, t := range sortedTerms(e.Categories, rel) {
		ev.Categories = append(ev.Categories, richtext.PlainText(t.Name))
	}
	return ev
}

// feedTimes returns DTSTART and DTEND of e. An event in a tz database zone keeps its zone (a TZID, and
// the VTIMEZONE Encode writes for it), so that clients show its wall clock across DST changes. One in
// a fixed offset ("UTC+5") is written in UTC: a TZID "UTC+5" names no zone Google or Outlook knows,
// and a fixed offset has no rules that UTC would lose. An all-day event is its dates in its zone, the
// end being the day after its last (DTEND is exclusive).
func feedTimes(e *storage.Event, site datetime.Zone) (start, end time.Time) {
	loc, _ := feedLoc(e, site)
	start, end = e.StartUTC.In(loc), e.EndUTC.In(loc)
	if e.AllDay {
		end = end.AddDate(0, 0, 1)
	}
	return start, end
}

// feedLoc is the location e's times are written in (feedTimes), and its zone.
func feedLoc(e *storage.Event, site datetime.Zone) (*time.Location, datetime.Zone) {
	zone, err := datetime.ParseZone(e.Timezone)
	if err != nil {
		zone = site // as renderEvent reads a zone the store no longer accepts
	}
	if zone.Fixed() && !e.AllDay {
		return time.UTC, zone
	}
	return zone.Loc, zone
}

// A series in the feed. The feed shows what the list shows and nothing else: a calendar app expands
// a series' rule itself, so every instance the written rule gives must be an event of the answer, at
// the list's time and with its title. A series whose parent is in the answer is therefore one VEVENT
// with its RRULE, RDATEs and EXDATEs, and
//   - its RRULE ends (UNTIL) at the series' last instance in the answer, unless it ends there anyway:
//     the list ends at its end date (24 months ahead by default) and at MaxFeedEvents, and a rule
//     without an end would go on where the list has nothing (a subscriber sees the series grow as
//     the feed is polled);
//   - one more EXDATE removes every instance the rule gives that the answer does not hold: an
//     occurrence trashed, edited out of the request's filters, moved out of its dates, not visible
//     to the caller, hidden from listings, or never materialised (older than the series window), and
//     an instance the store reads otherwise than RFC 5545 (an EXDATE that names a day);
//   - an occurrence in the answer that the rule gives otherwise (edited, moved, retitled) overrides
//     its instance (RECURRENCE-ID, its start as the rule gave it), and one the rule does not give at
//     all (kept after the rule changed) or made all-day when the series is not (or the reverse) is
//     an event of its own, as occurrences are without their parent.
//
// When the exclusions would outnumber the series' events in the answer, or the rule no longer gives
// the parent's own date, the series is written as its events instead, each a VEVENT of its own
// without a rule, which is exact in every calendar app; so is the first form, which keeps a series
// one item there. Either way a feed stays proportional to its events: the rule is expanded up to
// twice as many instances as the answer holds of the series, and no query is added.
type feedSeries struct {
	ev     ical.Event // the parent's VEVENT, with the lines above, or without a rule
	parent *storage.Event
	// instances holds the occurrences of the answer that are instances of ev's rule, by ID: their
	// starts as the rule gives them (RECURRENCE-ID). Empty without a rule.
	instances map[uint64]time.Time
}

// feedSeries plans the series whose parents are among events (in the answer), by parent ID.
func (h *Handler) feedSeries(rq *request, events []*storage.Event, rel *storage.Related, host string) (map[uint64]*feedSeries, error) {
	site := h.db.SiteZone()
	occurrences := map[uint64][]*storage.Event{}
	for _, e := range events {
		if e.Parent != 0 {
			occurrences[e.Parent] = append(occurrences[e.Parent], e)
		}
	}
	series := map[uint64]*feedSeries{}
	for _, p := range events {
		if len(p.Recurrence) == 0 {
			continue
		}
		s := &feedSeries{ev: h.vevent(rq, p, rel, host), parent: p, instances: map[uint64]time.Time{}}
		series[p.ID] = s
		loc, zone := feedLoc(p, site)
		listed := map[int64]bool{instanceKey(s.ev.Start, p.AllDay): true}
		last := s.ev.Start
		for _, c := range occurrences[p.ID] {
			if c.AllDay != p.AllDay {
				continue // its RECURRENCE-ID would not take DTSTART's form: an event of its own
			}
			at := originalStart(c, loc, zone)
			s.instances[c.ID] = at
			listed[instanceKey(at, p.AllDay)] = true
			if at.After(last) {
				last = at
			}
		}
		starts, ok, err := s.ev.Cut(last, 2*len(listed))
		if err != nil {
			return nil, err
		}
		var excluded []time.Time
		given := map[int64]bool{}
		for _, t := range starts {
			if k := instanceKey(t, p.AllDay); listed[k] {
				given[k] = true
			} else {
				excluded = append(excluded, t)
			}
		}
		if !ok || len(excluded) > len(listed) || !given[instanceKey(s.ev.Start, p.AllDay)] {
			s.ev.Recurrence, s.instances = nil, nil
			continue
		}
		s.ev.Exclude(excluded...)
		for id, at := range s.instances {
			if !given[instanceKey(at, p.AllDay)] {
				delete(s.instances, id)
			}
		}
	}
	return series, nil
}

// givesAsIs reports whether occurrence c, whose instance starts at at, is what the series' rule gives
// there: not edited on its own, the parent's title, the instance's start and the parent's length (an
// expander gives each instance DTSTART's duration).
func (s *feedSeries) givesAsIs(c *storage.Event, at time.Time, site datetime.Zone) bool {
	start, end := feedTimes(c, site)
	return !c.Detached && c.Title == s.parent.Title && instanceKey(start, c.AllDay) == instanceKey(at, c.AllDay) &&
		length(start, end, c.AllDay) == length(s.ev.Start, s.ev.End, c.AllDay)
}

// length is how long an event from start to end lasts as an expander reads it: in seconds, or in
// days when it is all-day.
func length(start, end time.Time, allDay bool) int64 {
	return instanceKey(end, allDay) - instanceKey(start, allDay)
}

// instanceKey names an instance of a series by its start: the instant, or the date of an all-day one.
func instanceKey(t time.Time, allDay bool) int64 {
	if allDay {
		y, m, d := t.Date()
		return time.Date(y, m, d, 0, 0, 0, 0, time.UTC).Unix()
	}
	return t.Unix()
}

// originalStart is RECURRENCE-ID of occurrence c: its start as the rule gave it, a wall clock of its
// parent's zone (c's own may have been edited since), in loc, the parent's feed location (feedLoc).
func originalStart(c *storage.Event, loc *time.Location, zone datetime.Zone) time.Time {
	w, err := datetime.ParseWall(c.Occurrence)
	if err != nil {
		return c.StartUTC.In(loc) // a record the store wrote without it: its start is the best guess
	}
	return w.In(zone.Loc).In(loc)
}

// location is LOCATION: the venue's name and address as one line, in the order of a postal address.
func location(v *storage.Venue) string {
	var parts []string
	for _, s := range []string{v.Title, v.Address, v.City, cmp.Or(v.StateProvince, v.State, v.Province), v.Zip, v.Country} {
		if s = richtext.PlainText(s); s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, ", ")
}
