package storage

import (
	"slices"
	"time"
)

// PostType is the kind of a record that draws its ID from the shared post sequence (docs/API.md "Routes").
type PostType uint8

// Post types. The values are stored in the change log and in record buckets' key space: never
// renumber them.
const (
	TypeEvent PostType = iota + 1
	TypeVenue
	TypeOrganizer
	TypeImage
)

func (t PostType) String() string {
	switch t {
	case TypeEvent:
		return "event"
	case TypeVenue:
		return "venue"
	case TypeOrganizer:
		return "organizer"
	case TypeImage:
		return "image"
	}
	return "unknown"
}

// Status is the post status of an event, venue or organizer (docs/API.md "Statuses").
type Status string

// Statuses.
const (
	StatusPublish Status = "publish"
	StatusFuture  Status = "future"
	StatusDraft   Status = "draft"
	StatusPending Status = "pending"
	StatusPrivate Status = "private"
	StatusTrash   Status = "trash"
)

// Post holds what events, venues and organizers have in common.
type Post struct {
	ID   uint64   `json:"id"`
	Type PostType `json:"type"`
	Lang Lang     `json:"lang"`
	// Group is the translation group; 0 once the record has left it (trash).
	Group  uint64 `json:"group,omitempty"`
	Author uint64 `json:"author"`
	Status Status `json:"status"`
	// TrashedFrom is the status before trashing; the permission rules and restore use it.
	TrashedFrom Status    `json:"trashed_from,omitempty"`
	TrashedAt   time.Time `json:"trashed_at,omitzero"`
	// Date is the publication instant. DateSet records that a client chose it, so that the first
	// publication does not move it (docs/API.md "Statuses").
	Date        time.Time `json:"date"`
	DateSet     bool      `json:"date_set,omitempty"`
	Modified    time.Time `json:"modified"`
	Slug        string    `json:"slug"`
	Title       string    `json:"title"`
	Description string    `json:"description,omitempty"`
	ImageID     uint64    `json:"image,omitempty"`
	// NeverPublic is set on a record created unpublished and cleared for good the first time it is
	// published: the change feed tells a caller of a record's removal only if it could have seen it.
	// Records stored before the field existed count as once public.
	NeverPublic bool `json:"never_public,omitempty"`
	// promoted is set when a read reports the stored `future` as `publish` (promote): writes compare
	// against what is stored.
	promoted bool
}

func (p *Post) effectiveStatus() Status {
	if p.Status == StatusTrash && p.TrashedFrom != "" {
		return p.TrashedFrom
	}
	return p.Status
}

// Untrashed is p as it was before trashing: p itself when it is not in the trash.
func (p *Post) Untrashed() *Post {
	q := *p
	q.Status = q.effectiveStatus()
	return &q
}

// promote reports a due scheduled post as published (docs/API.md "Statuses") without a write: every read goes
// through it, so no response shows a stale `future`.
func (p *Post) promote(now time.Time) {
	if s := Effective(p.Status, p.Date, now); s != p.Status {
		p.Status, p.promoted = s, true
	}
}

// storedStatus is the status as stored, before promote.
func (p *Post) storedStatus() Status {
	if p.promoted {
		return StatusFuture
	}
	return p.Status
}

// Event is a calendar event.
type Event struct {
	Post
	Excerpt  string `json:"excerpt,omitempty"`
	Timezone string `json:"timezone"`
	AllDay   bool   `json:"all_day,omitempty"`
	// Start and End are wall clocks in the event's zone (DB datetimes); the UTC instants are derived
	// from them whenever they or the zone change.
	Start    string    `json:"start"`
	End      string    `json:"end"`
	StartUTC time.Time `json:"start_utc"`
	EndUTC   time.Time `json:"end_utc"`
	Cost     []string  `json:"cost,omitempty"`
	// Website is nil until a value has been stored, which the response distinguishes (docs/API.md "The event object").
	Website          *string  `json:"website,omitempty"`
	ShowMap          bool     `json:"show_map,omitempty"`
	ShowMapLink      bool     `json:"show_map_link,omitempty"`
	HideFromListings bool     `json:"hide_from_listings,omitempty"`
	Sticky           bool     `json:"sticky,omitempty"`
	Featured         bool     `json:"featured,omitempty"`
	Categories       []uint64 `json:"categories,omitempty"`
	Tags             []uint64 `json:"tags,omitempty"`
	VenueID          uint64   `json:"venue,omitempty"`
	OrganizerIDs     []uint64 `json:"organizers,omitempty"`
	// Recurrence makes the event the parent of a series: its RRULE, RDATE and EXDATE lines (series.go).
	Recurrence []string `json:"recurrence,omitempty"`
	// Parent is the series an occurrence belongs to, and Occurrence its start as the rule gave it, a
	// wall clock in the event's zone: its date names it among the parent's exclusions.
	Parent     uint64 `json:"parent,omitempty"`
	Occurrence string `json:"occurrence,omitempty"`
	// Detached marks an occurrence edited on its own: the series leaves it as it is.
	Detached bool `json:"detached,omitempty"`
}

// termIDs are the event's categories and tags, which share one ID space.
func (e *Event) termIDs() []uint64 {
	return append(slices.Clone(e.Categories), e.Tags...)
}

// Geo is a venue's position in degrees.
type Geo struct {
	Lat float64 `json:"lat"`
	Lng float64 `json:"lng"`
}

// Venue is a place where events happen.
type Venue struct {
	Post
	Address       string `json:"address,omitempty"`
	City          string `json:"city,omitempty"`
	Country       string `json:"country,omitempty"`
	Province      string `json:"province,omitempty"`
	State         string `json:"state,omitempty"`
	Zip           string `json:"zip,omitempty"`
	Phone         string `json:"phone,omitempty"`
	StateProvince string `json:"stateprovince,omitempty"`
	Website       string `json:"website,omitempty"`
	ShowMap       bool   `json:"show_map,omitempty"`
	ShowMapLink   bool   `json:"show_map_link,omitempty"`
	Geo           *Geo   `json:"geo,omitempty"`
}

// Organizer is a person or body that runs events.
type Organizer struct {
	Post
	Phone   string `json:"phone,omitempty"`
	Website string `json:"website,omitempty"`
	Email   string `json:"email,omitempty"`
}

// Image is an attachment registered by URL (the service never downloads it).
type Image struct {
	ID  uint64 `json:"id"`
	URL string `json:"url"`
}

// Taxonomy is the kind of a term.
type Taxonomy uint8

// Taxonomies. Stored in the change log: never renumber.
const (
	TaxCategory Taxonomy = iota + 1
	TaxTag
)

// Term is a category or a tag. Terms are shared by every language.
type Term struct {
	ID          uint64   `json:"id"`
	Taxonomy    Taxonomy `json:"taxonomy"`
	Name        string   `json:"name"`
	Slug        string   `json:"slug"`
	Description string   `json:"description,omitempty"`
	Parent      uint64   `json:"parent,omitempty"`
	// Count is the number of published events (any language) carrying the term, kept up to date by
	// every event write.
	Count int `json:"count"`
}
