package handlers

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/calendard/calendard/handlers/respcache"
	"github.com/calendard/calendard/index"
	"github.com/calendard/calendard/storage"
)

// Every list answer the cache holds expires at the same instant, the boundary: the next midnight of
// the site zone or the index's next event start or publication (listUntil). Without preparation, the
// first requests after it all miss at once, and every client asking a popular list computes it
// again side by side. So, shortly before the boundary, a job (jobs.PrepareBoundary) has the most
// requested lists computed as a request at the boundary would compute them, and kept beside the
// current answers under respcache.NextKey: a lookup from the boundary on finds them there
// (respcache.Cache.Get).
//
// A prepared answer is computed by the route's own code with the clock read as the boundary, so it
// takes everything that moves at the boundary from there: the default date window, relative dates
// such as start_date=tomorrow, the only_with_upcoming sets of venues and organizers, and the
// boundary after it. It is kept with the store's head and the index's version it was computed at,
// like any answer, so a write before the boundary discards it. Only anonymous answers are prepared:
// a caller's answer would need their credentials, and the callers of the popular lists are front
// ends, anonymous. The iCalendar feed is not: its Last-Modified follows the answer before it
// (feedModified), which a prepared answer would overtake.
//
// Prepared answers share the list cache's bound (the memory budget's share of the lists): they are
// entries like the others, at most warmKeys of them, and are evicted like the others.

// warmKeys bounds the answers prepared for one boundary: the most requested lists since the last
// boundary prepared. A front end asks a few lists (its home page, a calendar's pages, the venues) far
// more often than the rest, and those few are the requests a cold boundary slows down.
const warmKeys = 32

// PrepareBoundary computes ahead the answers of the most requested anonymous lists at the next
// boundary, when it comes within the given time, and returns how many it kept. With no anonymous
// list hit since the last boundary, it costs one look at the cache. An answer that fails (a route's
// error) is skipped; ctx ending stops it and is returned.
func (h *Handler) PrepareBoundary(ctx context.Context, within time.Duration) (int, error) {
	keys := h.lists.Hottest(warmKeys, func(key string) bool { _, ok := anonymousList(key); return ok })
	if len(keys) == 0 {
		return 0, nil
	}
	now, site := h.db.Now(), h.db.SiteZone()
	at := h.listUntil(ctx, now, site.Loc)
	if at.Sub(now) > within {
		return 0, nil // a later run prepares it, with the requests until then counted
	}
	// An answer computed during the second an event starts in is valid until that start only
	// (listUntil): the answers of such a boundary are prepared for the second after it.
	if !at.Before(h.listUntil(ctx, at, site.Loc)) {
		at = at.Add(time.Second)
	}
	h.lists.Cool()
	prepared := 0
	for _, key := range keys {
		if err := ctx.Err(); err != nil {
			return prepared, err
		}
		rq := h.boundaryRequest(key, at)
		w := newRecorder()
		// The deadline of a request (route): the job waits for each list in turn.
		rctx, cancel := context.WithTimeout(ctx, h.cfg.HandlerTimeout)
		rq.client, rq.r = rctx, rq.r.WithContext(context.WithValue(rctx, ctxKey{}, rq))
		h.router.ServeHTTP(w, rq.r)
		cancel()
		w.release()
		if w.status == http.StatusOK {
			prepared++
		} else {
			h.log.Debug("list not prepared for the boundary", zap.String("route", rq.r.URL.Path),
				zap.String("query", rq.r.URL.RawQuery), zap.Int("status", w.status))
		}
	}
	return prepared, nil
}

// anonymousList splits key, a list cache key (listKey), into its route, query, origin and language
// prefix; ok is false unless it is the key of an anonymous caller's list other than the feed.
func anonymousList(key string) (parts []string, ok bool) {
	parts = strings.Split(key, "\x00")
	if len(parts) != 6 || parts[0] == feedRoute || parts[4] != "0" || parts[5] != "" {
		return nil, false
	}
	return parts[:4], true
}

// boundaryRequest is the GET whose answer the list cache keeps under key, an anonymousList's, as the
// chain (chain.go) and route would make it for a request at at, without its context.
func (h *Handler) boundaryRequest(key string, at time.Time) *request {
	parts, _ := anonymousList(key)
	route, query, origin, prefix := parts[0], parts[1], parts[2], storage.Lang(parts[3])
	rq := &request{db: h.db, id: "boundary", origin: origin, method: http.MethodGet, now: at, site: h.db.SiteZone(),
		prefix: prefix, preparing: true}
	rq.r = &http.Request{Method: http.MethodGet, URL: &url.URL{Path: "/" + namespace + "/" + route, RawQuery: query},
		Header: http.Header{}}
	return rq
}

// prepare computes the answer of rq, a request at the coming boundary (rq.preparing), and keeps it
// under respcache.NextKey(key) with the head and version it was computed at; only its status is
// written to w, for PrepareBoundary to count. It keeps the gzip body only when the answer is
// compressible: the clients of the popular lists accept gzip, and a plain client gets the plain body
// once (plainOf).
func (h *Handler) prepare(w http.ResponseWriter, rq *request, key string, head uint64, version index.Version, fn handleFunc) error {
	// A boundary up to the job's lead ahead is seen by two of its runs: the second keeps what the
	// first prepared, unless a write came between them.
	if h.lists.Peek(respcache.NextKey(key)).ValidAt(head, version, rq.now) {
		w.WriteHeader(http.StatusOK)
		return nil
	}
	rec := newRecorder()
	defer rec.release()
	rq.plain = true
	if err := fn(rec, rq); err != nil {
		return err
	}
	w.WriteHeader(rec.status)
	if rec.status != http.StatusOK {
		return nil
	}
	c := &respcache.Entry{Head: head, Version: version, From: rq.now, Until: h.listUntil(rq.r.Context(), rq.now, rq.site.Loc),
		Status: rec.status, Header: rec.header}
	keep(c, rec.body.Bytes(), compressible(rec.status, rec.body.Len()))
	h.lists.Put(respcache.NextKey(key), c)
	return nil
}
