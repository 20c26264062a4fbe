package handlers

import (
	"context"
	"net/http"
	"net/url"
	"runtime"
	"slices"
	"strings"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// middleware is one link of a chain: it answers the request itself or passes it on to next.
type middleware func(next http.Handler) http.Handler

// chain puts the links in front of last, the first link outermost.
func chain(links []middleware, last http.Handler) http.Handler {
	for _, link := range slices.Backward(links) {
		last = link(last)
	}
	return last
}

// root is what every request goes through, whatever family serves it, then the family mounted at its
// path (mount.go). A new concern that applies to every answer (compression) is one more entry here.
func (h *Handler) root() http.Handler {
	return chain([]middleware{
		h.observe, // request ID, status and size, panic recovery, the request's log line
		h.measure, // the request's count and latency by route, method and status (metrics.go)
		h.headers, // the headers of docs/API.md "Responses" that every answer carries
	}, &h.families)
}

// rest is the REST namespace's family, mounted at "/" so that it also answers every path no other
// family has: one link per concern, in the order of the API's checks before routing (the first to
// fail answers), then the route. A concern of the API's requests only is one more entry here.
func (h *Handler) rest() family {
	return family{patterns: []string{"/"}, handler: chain([]middleware{
		h.methodOverride, // X-HTTP-Method-Override and _method (docs/API.md "Parameters and bodies")
		h.identify,       // who calls, from which site; spends the rate-limit token
		h.bodyLimit,      // step 1: 413
		h.crossSiteWrite, // step 2: 403 (1.9)
		h.rateLimit,      // step 3: 429 (10.3)
		h.credentials,    // step 4: 401, or 429 when failures are throttled (7.3)
		h.limitWrites,    // 429 when a user below editor writes too fast; needs step 4's role (writelimits.go)
		h.minRevision,    // X-Calendar-Min-Revision: wait for the node to apply it, or 503 (revision.go)
	}, http.HandlerFunc(h.route))} // steps 5 to 11
}

// observe gives the request its state (request), wraps the writer to learn the status, recovers a
// panic into a 500, and logs the request when it is done.
func (h *Handler) observe(next http.Handler) http.Handler {
	// The request line's caller is this function, found once here: zap would look it up in the stack
	// on every line, walking the stack and reading the symbol tables.
	requests, caller := h.log.WithOptions(zap.WithCaller(false)), zapcore.NewEntryCaller(runtime.Caller(0))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w, revision: h.revisions} // nil while loading: no revision is applied yet
		rq := &request{r: r, db: h.db, id: newRequestID(), origin: h.origin(r), remote: h.clientAddr(r), method: r.Method,
			now: h.db.Now(), site: h.db.SiteZone(), sw: sw}
		defer func() {
			if p := recover(); p != nil {
				h.log.Error("panic", zap.String("request_id", rq.id), zap.Any("panic", p), zap.Stack("stack"))
				if sw.status == 0 {
					h.writeError(sw, rq, errInternal)
				}
			}
			// Who asked, never with what: the user's ID once authenticated, the connection's address
			// (X-Forwarded-For is anyone's to write), no credentials.
			if ce := requests.Check(zap.InfoLevel, "request"); ce != nil {
				ce.Caller = caller
				ce.Write(zap.String("method", r.Method), zap.String("path", r.URL.Path),
					zap.String("query", r.URL.RawQuery), zap.Int("status", sw.status), zap.Int("bytes", sw.bytes),
					zap.Duration("duration", time.Since(start)), zap.String("remote", rq.remote),
					zap.Uint64("user_id", rq.actor.UserID), zap.String("user_agent", r.UserAgent()),
					zap.String("request_id", rq.id))
			}
		}()
		next.ServeHTTP(sw, r.WithContext(context.WithValue(r.Context(), ctxKey{}, rq)))
	})
}

func (h *Handler) headers(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.commonHeaders(w, r)
		next.ServeHTTP(w, r)
	})
}

// whileLoading is the REST namespace of a server whose index loads (NewLoading): rest_not_ready to every
// request, since no other answer is possible yet.
func (h *Handler) whileLoading(w http.ResponseWriter, r *http.Request) {
	h.writeError(w, requestOf(r), notReady(h.loading.Progress(), time.Now()))
}

// methodOverride lets a POST act as PUT, PATCH or DELETE (docs/API.md "Parameters and bodies"); the query parameter wins
// over the header.
func (h *Handler) methodOverride(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if rq := requestOf(r); rq.method == http.MethodPost {
			override := r.Header.Get("X-HTTP-Method-Override")
			if m := r.URL.Query().Get("_method"); m != "" {
				override = m
			}
			switch m := strings.ToUpper(override); m {
			case http.MethodPut, http.MethodPatch, http.MethodDelete:
				rq.method = m
			}
		}
		next.ServeHTTP(w, r)
	})
}

// identify settles who calls before any step fails: the rate limit (step 3) keys on the authenticated
// user, which only the credentials (step 4) tell, so the identity is resolved first without failing,
// the token spent, and the steps' links then fail in their order. Invalid credentials leave the
// caller anonymous, so they spend a token of the remote IP's bucket, and once that is empty the 429
// wins over the 401: guessing passwords is rate limited too. A body too large (step 1) spends a token
// as well and still answers 413 (10.3), and so does a cross-site write (step 2): every request costs
// a token, whatever its answer. A cross-site write's credentials are not looked at (1.9), so its token
// is the remote IP's: a page on another site cannot spend the tokens of the user whose browser it
// borrows.
func (h *Handler) identify(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rq := requestOf(r)
		if rq.crossSite = h.crossSite(rq); !rq.crossSite {
			rq.authErr = h.authenticate(rq)
		}
		rq.wait = h.limitRate(rq.sw, rq)
		next.ServeHTTP(w, r)
	})
}

func (h *Handler) bodyLimit(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength > h.cfg.MaxBodyBytes {
			// The body stays unread: close the connection rather than let the server drain it.
			w.Header().Set("Connection", "close")
			h.writeError(w, requestOf(r), errTooLarge)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func (h *Handler) crossSiteWrite(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if rq := requestOf(r); rq.crossSite {
			h.writeError(w, rq, errCrossSite)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func (h *Handler) rateLimit(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if rq := requestOf(r); rq.wait > 0 {
			h.writeError(w, rq, tooManyRequests(rq.wait))
			return
		}
		next.ServeHTTP(w, r)
	})
}

func (h *Handler) credentials(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if rq := requestOf(r); rq.authErr != nil {
			h.writeError(w, rq, rq.authErr)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// route runs steps 5 to 11: the path is normalised (docs/API.md "Routes"), the handler's deadline set
// (10.2), and the router finds the route.
func (h *Handler) route(w http.ResponseWriter, r *http.Request) {
	rq := requestOf(r)
	rq.client = r.Context()
	if h.answerHot(w, rq) {
		return
	}
	path, ok := h.normalizePath(rq, r.URL.EscapedPath())
	if !ok {
		h.writeError(w, rq, errNoRoute)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), h.cfg.HandlerTimeout)
	defer cancel()
	r2 := r.WithContext(ctx)
	switch r2.Method = rq.method; rq.method {
	case http.MethodHead:
		r2.Method = http.MethodGet
	case http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete, http.MethodOptions:
	default:
		// Any other method is a wrong one (docs/API.md "Routes"). It is routed as OPTIONS, which every route
		// has, so that its answer names the route's methods.
		r2.Method = http.MethodOptions
	}
	r2.URL = &url.URL{Path: path, RawQuery: r.URL.RawQuery}
	rq.r = r2
	h.router.ServeHTTP(w, r2)
}
