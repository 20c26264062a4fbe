package handlers

import (
	"net/http"

	"github.com/calendard/calendard/index"
	"github.com/calendard/calendard/storage"
)

func (h *Handler) listEvents(w http.ResponseWriter, rq *request) error {
	page, perPage := pageOf(rq)
	f, err := h.eventFilter(rq, (page-1)*perPage, perPage)
	if err != nil {
		return err
	}
	res, err := h.index.Events(rq.r.Context(), f)
	if err != nil {
		return err
	}
	items, err := h.renderItems(rq, storage.TypeEvent, res.IDs)
	if err != nil {
		return err
	}
	markTypoTolerant(w, res)
	return h.writeList(w, rq, listing{key: "events", items: items, total: res.Total, page: page, perPage: perPage,
		doc: storage.DocEvent, params: eventListParams})
}

func (h *Handler) listPlaces(k *recordKind) handleFunc {
	return func(w http.ResponseWriter, rq *request) error {
		page, perPage := pageOf(rq)
		f := &index.PlaceFilter{Type: k.postType, Lang: rq.lang, Visibility: visibility(rq), Now: rq.now,
			Offset: (page - 1) * perPage, Limit: perPage, HasEvents: rq.vals.boolean("has_events")}
		if s := rq.vals.str("search"); s != nil {
			f.Search = *s
		}
		if up := rq.vals.boolean("only_with_upcoming"); up != nil {
			f.Upcoming = *up
		}
		if id, ok := rq.vals["event"].(int64); ok {
			e, _, err := h.db.Event(rq.r.Context(), uint64(id))
			if err != nil {
				return err
			}
			f.Linked = []uint64{}
			if k.postType == storage.TypeVenue && e.VenueID != 0 {
				f.Linked = []uint64{e.VenueID}
			} else if k.postType == storage.TypeOrganizer {
				f.Linked = append(f.Linked, e.OrganizerIDs...)
			}
		}
		res, err := h.index.Places(rq.r.Context(), f)
		if err != nil {
			return err
		}
		items, err := h.renderItems(rq, k.postType, res.IDs)
		if err != nil {
			return err
		}
		markTypoTolerant(w, res)
		return h.writeList(w, rq, listing{key: k.route, items: items, total: res.Total, page: page, perPage: perPage,
			doc: k.postType.DocKind(), params: placeListParams})
	}
}

// typoTolerantHeader marks a list answered with typo tolerance because its search found nothing as
// typed (index.Page.TypoTolerant); the list cache keeps it with the body.
const typoTolerantHeader = "X-Calendar-Search"

func markTypoTolerant(w http.ResponseWriter, res index.Page) {
	if res.TypoTolerant {
		w.Header().Set(typoTolerantHeader, "typo-tolerant")
	}
}
