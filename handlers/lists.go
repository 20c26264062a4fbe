package handlers

import (
	"net/http"

	"github.com/calendard/calendard/index"
	"github.com/calendard/calendard/storage"
)

func (h *Handler) listEvents(w http.ResponseWriter, rq *request) error {
	q := rq.query.(*eventQuery)
	f, err := h.eventFilter(rq, q.offset(), q.perPage)
	if err != nil {
		return err
	}
	if f.Facets, err = h.eventFacets(rq, &q.facetQuery); err != nil {
		return err
	}
	res, err := h.index.Events(rq.r.Context(), f)
	if err != nil {
		return err
	}
	rq.highlight = q.of(f.Search, res)
	items, err := h.renderItemsWith(rq, storage.TypeEvent, res.IDs, distancesOf(res))
	if err != nil {
		return err
	}
	l := listing{key: "events", items: items, total: res.Total, paging: q.paging, doc: storage.DocEvent, params: eventListParams}
	if res.Facets != nil {
		facets, err := h.facetsObj(rq.r.Context(), &q.facetQuery, res.Facets)
		if err != nil {
			return err
		}
		l.extra = append(l.extra, member{"facets", facets})
	}
	markTypoTolerant(w, res)
	return h.writeList(w, rq, l)
}

// placeQuery is the venues and organizers lists' query as the rows of placeListParams write it: the
// index's filter, and the event whose venue or organizers it lists (0: none).
type placeQuery struct {
	paging
	index.PlaceFilter
	highlighting
	event uint64
}

func newPlaceQuery(*request) any { return &placeQuery{paging: firstPage} }

func (h *Handler) listPlaces(k *recordKind) handleFunc {
	return func(w http.ResponseWriter, rq *request) error {
		q := rq.query.(*placeQuery)
		f := q.PlaceFilter
		f.Type, f.Lang, f.Actor, f.Now, f.Offset, f.Limit = k.postType, rq.lang, rq.actor, rq.now, q.offset(), q.perPage
		if q.event != 0 {
			e, _, err := h.db.Event(rq.r.Context(), q.event)
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
		res, err := h.index.Places(rq.r.Context(), &f)
		if err != nil {
			return err
		}
		rq.highlight = q.of(f.Search, res)
		items, err := h.renderItems(rq, k.postType, res.IDs)
		if err != nil {
			return err
		}
		markTypoTolerant(w, res)
		return h.writeList(w, rq, listing{key: k.route, items: items, total: res.Total, paging: q.paging,
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
