package index

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/RoaringBitmap/roaring/v2/roaring64"

	"github.com/calendard/calendard/storage"
)

// Places answers a venues or organizers list, newest publication first.
func (ix *Index) Places(ctx context.Context, f *PlaceFilter) (Page, error) {
	l := ix.langs[f.Lang]
	return l.answer(ctx, f.Search, ix.Version(), func(text *roaring64.Bitmap, _ bool) (Page, error) {
		return l.places(f, text), nil
	})
}

// places pages the venues or organizers of f that text allows.
func (l *lang) places(f *PlaceFilter, text *roaring64.Bitmap) Page {
	l.mu.RLock()
	defer l.mu.RUnlock()
	rows, links := l.proj.venues, l.proj.venueEvents
	if f.Type == storage.TypeOrganizer {
		rows, links = l.proj.orgs, l.proj.orgEvents
	}
	var matched []*placeRow
	for _, r := range rows {
		if f.Linked != nil && !slices.Contains(f.Linked, r.id) {
			continue
		}
		if text != nil && !text.Contains(r.id) {
			continue
		}
		if !f.allows(r.author, r.status, r.trashed, r.date, f.Now) {
			continue
		}
		if f.HasEvents != nil && l.proj.hasEvents(links[r.id], f.Now) != *f.HasEvents {
			continue
		}
		if f.Upcoming && !l.proj.hasUpcoming(links[r.id], f.Now, f.Actor.Can(storage.CapEditPosts)) {
			continue
		}
		matched = append(matched, r)
	}
	slices.SortFunc(matched, func(a, b *placeRow) int { return cmp.Or(cmp.Compare(b.date, a.date), cmp.Compare(b.id, a.id)) })
	page := Page{Total: len(matched)}
	for _, r := range matched[min(f.Offset, len(matched)):min(f.Offset+f.Limit, len(matched))] {
		page.IDs = append(page.IDs, r.id)
	}
	return page
}

// hasEvents: linked to an event whose status is publish, future or private (docs/API.md "Venue and organizer list parameters").
func (p *projection) hasEvents(events eventIDs, now time.Time) bool {
	for _, id := range events {
		if r := p.event(id); r != nil {
			switch effective(r.status.status(), r.date, now) {
			case storage.StatusPublish, storage.StatusFuture, storage.StatusPrivate:
				return true
			}
		}
	}
	return false
}

// hasUpcoming: linked to an event that has not started, is listed, and is published (or, for callers
// with edit_posts, scheduled or private).
func (p *projection) hasUpcoming(events eventIDs, now time.Time, editor bool) bool {
	for _, id := range events {
		r := p.event(id)
		if r == nil || r.hidden || r.startUTC < now.Unix() {
			continue
		}
		switch effective(r.status.status(), r.date, now) {
		case storage.StatusPublish:
			return true
		case storage.StatusFuture, storage.StatusPrivate:
			if editor {
				return true
			}
		}
	}
	return false
}
