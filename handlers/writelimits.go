package handlers

import (
	"net/http"
	"strconv"

	"github.com/calendard/calendard/storage"
)

// The write limits bound what one account below editor can add to the store in a short time: without
// them a contributor's script creates 40 daily series in a few seconds, about 57,000 events and 250 MB.
// They are additive to the general rate limit (ratelimit.go), which stays off by default; these are on
// by default, and each is a limiter of its own, per user ID, in this node's memory (a cluster's nodes
// each count their own). Editors and administrators are never limited by them: they may change
// everyone's records, so they are trusted with bulk work (a script moving a calendar in runs as one;
// calendard import and the mirrors write to the store directly, as the administrator). Users are
// created only by the operator, so, unlike IP addresses, the keys cannot be invented to flood the
// limiters.
const (
	// DefaultWriteRateLimitPerMinute is the default of the per-user write rate limit (Config): a
	// bucket of 60 writes, refilled at one a second. A person editing by hand never gets near it (a
	// form takes longer than a second to fill, and a burst of 60 covers trashing a page of records
	// one by one); a script is slowed to one write a second.
	DefaultWriteRateLimitPerMinute = 60
	// DefaultSeriesPerHour is the default of the per-user series limit (Config): a bucket of 20 new
	// series, refilled at one every three minutes. Entering a season's recurring events by hand takes
	// a minute or more per series, so a person rarely drains it; a script is slowed from 40 daily
	// series in seconds to 20, then one every three minutes (a daily series being about 1,400
	// events and 6 MB, the largest a rule may make), which an operator notices on the disk long
	// before it is full.
	DefaultSeriesPerHour = 20
)

// writeLimited reports whether the write limits count a's writes: those of authenticated users below
// editor, who lack edit_others_posts. Anonymous writes are refused anyway, and are the general rate
// limit's, keyed by address.
func writeLimited(a storage.Actor) bool {
	return !a.Anonymous() && !a.Can(storage.CapEditOthersPosts)
}

// isWrite reports whether method, after any override, is a write.
func isWrite(method string) bool {
	switch method {
	case http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete:
		return true
	}
	return false
}

// limitWrites spends a token of the caller's write bucket on every write by a user below editor that
// got past its credentials, whatever its answer then (as the general rate limit counts every request),
// and answers 429 with Retry-After when none is left. It sends no X-RateLimit-* headers: those
// describe the general rate limit, which may be on beside it with another N, and every response stays
// as it was while that one is off.
func (h *Handler) limitWrites(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if rq := requestOf(r); h.writes != nil && isWrite(rq.method) && writeLimited(rq.actor) {
			if _, wait := h.writes.take(h.rateKey(rq), rq.now); wait > 0 {
				h.writeError(w, rq, limitReached(wait, "You have reached the limit of "+strconv.FormatInt(h.writes.n, 10)+
					" writes a minute for users below editor: nothing was saved. Retry after the delay given."))
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// limitSeries spends a token of the caller's series bucket when a write by a user below editor makes a
// series (recordKind.makesSeries; old is the record an update changes, nil on a create), and answers
// 429 with Retry-After when none is left. It runs after the permission check, before the store is
// asked, and a write the store then refuses (a rule it cannot hold, 400) keeps its token spent: the
// limiter gives nothing back, and charging only after a write succeeded would let the writes racing
// for the last token all pass. A client is told at once why its rule was refused; a script that
// retries one blindly is what this limit is there to slow down.
func (h *Handler) limitSeries(rq *request, k *recordKind, old *record) error {
	if h.series == nil || k.makesSeries == nil || !writeLimited(rq.actor) || !k.makesSeries(rq.vals, old) {
		return nil
	}
	if _, wait := h.series.take(h.rateKey(rq), rq.now); wait > 0 {
		return limitReached(wait, "You have reached the limit of "+strconv.FormatInt(h.series.n, 10)+
			" new recurring series an hour for users below editor: nothing was saved. Retry after the delay given.")
	}
	return nil
}
