package handlers

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// Read-your-writes across the nodes of a cluster (docs/CLUSTER.md). Every answer carries
// X-Calendar-Revision: the change-log position its node's index had applied when the answer's header
// was written (statusWriter). A write answers only once its node has indexed it, so a write's
// revision includes the write. Positions are the store's change log's, the same on every node. A
// request carrying X-Calendar-Min-Revision: N is answered once the node has applied N, after a wait
// of at most Config.RevisionWait, else with 503 rest_revision_pending and Retry-After: a front end behind
// a load balancer sends back the revision of its last write and reads that write on any node. On one
// node (the embedded store) every acknowledged write is applied, and the header never waits.

const (
	revisionHeader    = "X-Calendar-Revision"
	minRevisionHeader = "X-Calendar-Min-Revision"
	// DefaultRevisionWait is Config.RevisionWait's default: a node that follows the change log is a
	// fraction of a second behind; one further behind is catching up or cut off, and the client is
	// better told to retry (or to try another node).
	DefaultRevisionWait = 5 * time.Second
	// revisionRetryAfter is rest_revision_pending's Retry-After, in seconds.
	revisionRetryAfter = 1
)

// minRevision holds a request that names a revision until the node has applied it.
func (h *Handler) minRevision(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		v := r.Header.Get(minRevisionHeader)
		if v == "" {
			next.ServeHTTP(w, r)
			return
		}
		rq := requestOf(r)
		n, err := strconv.ParseUint(strings.TrimSpace(v), 10, 64)
		if err != nil {
			h.writeError(w, rq, invalidParam(minRevisionHeader, "rest_invalid_param",
				"X-Calendar-Min-Revision must be a revision (X-Calendar-Revision of an earlier answer), a non-negative integer."))
			return
		}
		if h.index.Applied() < n {
			ctx, cancel := context.WithTimeout(r.Context(), h.cfg.RevisionWait)
			_ = h.index.WaitApplied(ctx, n)
			cancel()
			if h.index.Applied() < n {
				h.writeError(w, rq, errRevisionPending)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// catchUp waits until this node's copy of the store holds every change the store every node shares
// had committed when it was called (cluster mode: etcd's, read linearizably), at most
// Config.RevisionWait, and reports whether the copy holds them: a write route whose record check
// failed on the copy checks again then, so that a record another node has just created, without
// X-Calendar-Min-Revision, is not "not found" here. The copy may have received it meanwhile already:
// the check is made again whenever the copy holds the cluster's head.
func (h *Handler) catchUp(rq *request) bool {
	ctx := rq.r.Context()
	head, err := h.db.PrimaryChangeHead(ctx)
	if err != nil {
		return false
	}
	if local, err := h.db.ChangeHead(ctx); err == nil && local >= head {
		return true
	}
	// The index applies what the copy receives: once it has applied head, the copy holds it.
	wctx, cancel := context.WithTimeout(ctx, h.cfg.RevisionWait)
	defer cancel()
	return h.index.WaitApplied(wctx, head) == nil
}

// revisions gives the answers their X-Calendar-Revision, formatted once per revision the index
// applies rather than once per answer: the value is shared by every answer stamped with it, and
// never written into.
type revisions struct {
	applied func() uint64
	last    atomic.Pointer[revisionValue]
}

type revisionValue struct {
	n     uint64
	value []string
}

// value is the header's value for the revision applied now.
func (r *revisions) value() []string {
	n := r.applied()
	if last := r.last.Load(); last != nil && last.n == n {
		return last.value
	}
	v := &revisionValue{n: n, value: []string{strconv.FormatUint(n, 10)}}
	r.last.Store(v)
	return v.value
}
