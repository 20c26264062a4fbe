package handlers

import (
	"hash/maphash"
	"net/http"
	"sync/atomic"

	"github.com/calendard/calendard/storage"
)

// The hot path answers a list request the list cache answered a moment ago without routing it or
// reading its parameters again: a front page asked for thousands of times a second costs its cache
// lookup and its write, as a static file would. The full path remembers how it understood a
// request line (hotLine): the list's route, the Allow header its caller gets, and the list cache's
// key of the answer. A request with the same line, from the same origin and caller, in the same
// second of the clock and at the same change-log head, would be understood the same way: its
// parameters' validation reads nothing else (existence checks read the store at that head, relative
// dates the clock to the second). It is then answered from that key's entry if the entry is fresh
// (the same test the full path makes), and otherwise goes the full path.

// hotSlots is how many request lines the hot path remembers: each in a slot chosen by its hash, the
// last one there wins. A calendar's front ends ask for a few hundred lists again and again.
const hotSlots = 1024

// hotLineMax bounds the bytes of a line remembered (its request line, origin and cache key), so that
// the table holds 4 MB at most whatever clients send: longer lines are rare, and go the full path.
const hotLineMax = 4 << 10

// hotLine is how the full path understood a request: its request line (path and query as sent), the
// origin and caller, the clock's second and the change-log head it was understood at, and what it
// found: the route's metrics label, the Allow header's value and the list cache's key.
type hotLine struct {
	uri, origin string
	actor       storage.Actor
	second      int64
	head        uint64
	route, key  string
	allow       []string
}

// hotLines are the request lines remembered. Slots are replaced whole, never written into, so
// readers need no lock.
type hotLines struct {
	seed  maphash.Seed
	slots [hotSlots]atomic.Pointer[hotLine]
}

func newHotLines() *hotLines { return &hotLines{seed: maphash.MakeSeed()} }

func (t *hotLines) slot(uri string) *atomic.Pointer[hotLine] {
	return &t.slots[maphash.String(t.seed, uri)%hotSlots]
}

// find returns the line remembered for rq's request line if it was understood for the same origin
// and caller, in rq's second; otherwise nil. The caller compares its head.
func (t *hotLines) find(rq *request) *hotLine {
	l := t.slot(rq.r.RequestURI).Load()
	if l == nil || l.uri != rq.r.RequestURI || l.second != rq.now.Unix() ||
		l.origin != rq.origin || l.actor != rq.actor {
		return nil
	}
	return l
}

// remember keeps how rq, a GET its route answered from or into the list cache, was understood:
// route and allow are what dispatch found. rq.listKey is the cache's key, rq.listHead the head it
// was valid at.
func (t *hotLines) remember(rq *request, route string, allow []string) {
	uri := rq.r.RequestURI
	if rq.listKey == "" || rq.sw.status != http.StatusOK || uri == "" || len(uri)+len(rq.origin)+len(rq.listKey) > hotLineMax {
		return
	}
	t.slot(uri).Store(&hotLine{uri: uri, origin: rq.origin, actor: rq.actor, second: rq.now.Unix(),
		head: rq.listHead, route: route, key: rq.listKey, allow: allow})
}

// answerHot answers rq from the list cache if the full path answered the same request line lately
// (hotLines.find) and the answer it keyed is still fresh, and reports whether it did. Only a GET
// without a body qualifies: a body's parameters are not in the request line.
func (h *Handler) answerHot(w http.ResponseWriter, rq *request) bool {
	if rq.method != http.MethodGet || rq.r.ContentLength != 0 || len(rq.r.TransferEncoding) > 0 {
		return false
	}
	// The line first: a request never remembered (a single record, a search) then reads no head,
	// which on a cluster node is a read transaction.
	l := h.hot.find(rq)
	if l == nil {
		return false
	}
	head, err := h.db.ChangeHead(rq.r.Context())
	if err != nil || head != l.head {
		return false
	}
	c, hits := h.lists.Get(l.key, head, h.index.Version(), rq.now)
	if c == nil {
		return false
	}
	rq.route = l.route
	w.Header()["Allow"] = l.allow
	if err := h.replay(w, rq, l.key, c, hits); err != nil {
		h.writeError(w, rq, err)
	}
	return true
}
