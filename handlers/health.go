package handlers

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"time"

	"github.com/julienschmidt/httprouter"
	"go.uber.org/zap"

	"github.com/calendard/calendard/storage"
	"github.com/calendard/calendard/storage/task"
)

// The health probes live outside the REST namespace: they are not routes of the API, so neither the
// namespace index nor /doc lists them, and they answer without authentication or rate limiting. So
// does /metrics (metrics.go) when it is served on the API's listener.
const (
	healthzPath = "/healthz"
	readyzPath  = "/readyz"
)

// probeTimeout bounds what /readyz asks the store, so that a probe answers within a second
// (Kubernetes' default timeout) whatever the cluster does: a cluster that has not answered by then is
// out of reach as far as readiness goes, and the node reports its stale reads.
const probeTimeout = 500 * time.Millisecond

// probes is the probes' family, on r: GET and HEAD /healthz and /readyz, and /metrics when it is
// served here.
func (h *Handler) probes(r *httprouter.Router) family {
	paths := map[string]httprouter.Handle{healthzPath: h.healthz, readyzPath: h.readyz}
	if h.servesMetrics() {
		paths[metricsPath] = h.metricsPage
	}
	f := family{handler: r}
	for path, fn := range paths {
		fn = labelled(path, fn)
		r.GET(path, fn)
		r.HEAD(path, fn)
		f.patterns = append(f.patterns, path)
	}
	return f
}

// healthz answers 200 while the process serves requests (liveness).
func (h *Handler) healthz(w http.ResponseWriter, _ *http.Request, _ httprouter.Params) {
	h.writeProbe(w, http.StatusOK, map[string]any{"status": "ok"})
}

// readyz answers 200 when the store is open and the search index has applied every change-log entry
// the store holds (readiness; in cluster mode, the cluster's store, so that a node is ready once it
// has caught up with the cluster); 503 while the index loads, with its progress, or with how many
// entries it is behind otherwise. A cluster node that cannot ask the cluster within probeTimeout
// answers 200 "stale" with the revision its reads reflect.
func (h *Handler) readyz(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
	if h.loading != nil {
		h.writeProbe(w, http.StatusServiceUnavailable, loadingProbe(h.loading.Progress(), time.Now()))
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), probeTimeout)
	defer cancel()
	if h.db.Full() && errors.Is(h.db.CheckSpace(ctx), storage.ErrNoSpace) {
		// Reads still work, but a node that cannot write should leave the rotation until it can.
		h.writeProbe(w, http.StatusServiceUnavailable, map[string]any{"status": "disk full"})
		return
	}
	head, err := h.db.PrimaryChangeHead(ctx)
	if errors.Is(err, storage.ErrUnavailable) || errors.Is(err, context.DeadlineExceeded) && r.Context().Err() == nil {
		// A cluster node that cannot reach etcd still serves reads from its copy, as of the revision
		// it tells (docs/CLUSTER.md): it stays in the rotation, because when etcd is down every node is
		// cut off alike, and taking them all out would stop the reads the design keeps serving. A
		// client that needs its own writes sends X-Calendar-Min-Revision and is told to retry.
		h.log.Warn("readiness: the cluster is out of reach, serving stale reads", zap.Error(err))
		h.writeProbe(w, http.StatusOK, map[string]any{"status": "stale", "revision": h.index.Applied()})
		return
	}
	if err != nil {
		h.log.Warn("readiness: store unavailable", zap.Error(err))
		h.writeProbe(w, http.StatusServiceUnavailable, map[string]any{"status": "store unavailable"})
		return
	}
	if applied := h.index.Applied(); applied < head {
		h.writeProbe(w, http.StatusServiceUnavailable, map[string]any{"status": "catching up", "behind": head - applied})
		return
	}
	h.writeProbe(w, http.StatusOK, map[string]any{"status": "ready"})
}

func (h *Handler) writeProbe(w http.ResponseWriter, status int, body map[string]any) {
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	if err := json.NewEncoder(w).Encode(body); err != nil {
		h.log.Debug("write probe", zap.Error(err))
	}
}

// loadingProbe is /readyz's body while the index loads: the phase, records scanned or change-log
// entries applied out of the total, and the time left at the rate so far.
func loadingProbe(p task.Progress, now time.Time) map[string]any {
	if p.Phase == "" {
		return map[string]any{"status": "starting"}
	}
	return map[string]any{"status": p.Phase, "done": p.Done, "total": p.Total,
		"remaining_seconds": int64(math.Ceil(p.Remaining(now).Seconds()))}
}
