package mirror

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/calendard/calendard/storage/pause"
)

// Defaults of a Getter.
const (
	DefaultAttempts   = 5
	DefaultBackoff    = 500 * time.Millisecond
	DefaultMaxBackoff = 30 * time.Second
	// DefaultTimeout bounds one request, from the connection to the last byte of the body.
	DefaultTimeout = 30 * time.Second
	// maxBody bounds a page read into memory: a TEC list page of 50 events is a few hundred KB.
	maxBody = 64 << 20
)

// Response is a page a Getter fetched: its status, headers and body.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// TimeoutError is a request that got no complete answer within the Getter's Timeout: no connection,
// no headers, or a body still arriving when the time was up.
type TimeoutError struct {
	URL     string
	Timeout time.Duration
}

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("GET %s: no complete answer within %s (the request timeout)", e.URL, e.Timeout)
}

// errRequestTimeout is the cause of a request's context when its Timeout ran out, which tells it
// from the caller's context ending.
var errRequestTimeout = errors.New("mirror: request timeout")

// StatusError is a response whose status is not 2xx, after the retries of a transient one.
type StatusError struct {
	URL    string
	Status int
	// Body starts the response body, which a site's error envelope explains.
	Body string
}

func (e *StatusError) Error() string {
	return fmt.Sprintf("GET %s: status %d: %s", e.URL, e.Status, e.Body)
}

// Getter fetches pages over HTTP, retrying transient failures. Its zero value is usable; its methods
// may be called from several goroutines.
type Getter struct {
	// Client defaults to http.DefaultClient.
	Client *http.Client
	// User and Password, when User is set, go with every request as HTTP Basic authentication (a
	// WordPress application password).
	User, Password string
	// Attempts bounds the tries of one request (DefaultAttempts).
	Attempts int
	// Backoff is the first wait before a retry, doubled at each retry up to MaxBackoff, of which a
	// random half is taken off (jitter) so that many clients do not retry in step.
	Backoff, MaxBackoff time.Duration
	// Timeout bounds each request, retries apart: connecting, the headers and the whole body
	// (DefaultTimeout). A request that times out is not retried: a site that does not answer within it
	// is down or stuck, and retries would multiply the wait; the run fails with a *TimeoutError and the
	// next run tries again.
	Timeout time.Duration
	// Sleep waits d or until ctx is done; tests record the waits through it. Defaults to a timer.
	Sleep func(ctx context.Context, d time.Duration) error

	requests atomic.Int64
}

// Requests counts the requests sent so far, retries included.
func (g *Getter) Requests() int64 { return g.requests.Load() }

// Request is what Do fetches: a URL, the media type asked for, and the validators of a copy the caller
// holds (conditional GET).
type Request struct {
	URL string
	// Accept is the Accept header; empty asks for JSON.
	Accept string
	// ETag and LastModified, when set, are the ETag and Last-Modified headers of the copy the caller
	// holds: they go as If-None-Match and If-Modified-Since, and the site may answer 304 Not Modified.
	ETag, LastModified string
}

// Get fetches url as JSON: Do without validators.
func (g *Getter) Get(ctx context.Context, url string) (*Response, error) {
	return g.Do(ctx, Request{URL: url})
}

// Do fetches r.URL. A network error, 429 or 5xx is retried after a back-off (a Retry-After header's
// wait when the site sends one, up to MaxBackoff) until Attempts are spent; then, or at once for any
// other status that is not 2xx (nor 304 to a request with validators, which is a Response), it returns
// a *StatusError (or the network error). A request without a complete answer within Timeout is a
// *TimeoutError at once. It returns ctx's error as soon as ctx is done.
func (g *Getter) Do(ctx context.Context, r Request) (*Response, error) {
	attempts := g.Attempts
	if attempts <= 0 {
		attempts = DefaultAttempts
	}
	conditional := r.ETag != "" || r.LastModified != ""
	var err error
	for try := 0; ; try++ {
		var resp *Response
		resp, err = g.get(ctx, r)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		var wait time.Duration
		var te *TimeoutError
		switch {
		case errors.As(err, &te):
			return nil, err
		case err != nil:
		case resp.Status >= 200 && resp.Status < 300, conditional && resp.Status == http.StatusNotModified:
			return resp, nil
		case resp.Status == http.StatusTooManyRequests || resp.Status >= 500:
			err = statusError(r.URL, resp)
			wait = retryAfter(resp.Header.Get("Retry-After"), time.Now())
		default:
			return resp, statusError(r.URL, resp)
		}
		if try+1 >= attempts {
			return nil, err
		}
		if wait == 0 {
			wait = g.backoff(try)
		}
		if err := g.sleep(ctx, min(wait, g.maxBackoff())); err != nil {
			return nil, err
		}
	}
}

// get sends one request, bounded by Timeout from the connection to the end of the body.
func (g *Getter) get(ctx context.Context, r Request) (*Response, error) {
	timeout := g.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	rctx, cancel := context.WithTimeoutCause(ctx, timeout, errRequestTimeout)
	defer cancel()
	timedOut := func(err error) error {
		if ctx.Err() == nil && errors.Is(context.Cause(rctx), errRequestTimeout) {
			return &TimeoutError{URL: r.URL, Timeout: timeout}
		}
		return err
	}
	req, err := http.NewRequestWithContext(rctx, http.MethodGet, r.URL, nil)
	if err != nil {
		return nil, err
	}
	accept := r.Accept
	if accept == "" {
		accept = "application/json"
	}
	req.Header.Set("Accept", accept)
	if r.ETag != "" {
		req.Header.Set("If-None-Match", r.ETag)
	}
	if r.LastModified != "" {
		req.Header.Set("If-Modified-Since", r.LastModified)
	}
	if g.User != "" {
		req.SetBasicAuth(g.User, g.Password)
	}
	client := g.Client
	if client == nil {
		client = http.DefaultClient
	}
	g.requests.Add(1)
	resp, err := client.Do(req)
	if err != nil {
		return nil, timedOut(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return nil, timedOut(fmt.Errorf("GET %s: %w", r.URL, err))
	}
	return &Response{Status: resp.StatusCode, Header: resp.Header, Body: body}, nil
}

func statusError(url string, r *Response) *StatusError {
	body := string(r.Body)
	if len(body) > 200 {
		body = body[:200]
	}
	return &StatusError{URL: url, Status: r.Status, Body: body}
}

// backoff is the wait before retry try+1: Backoff doubled try times, capped, minus a random part of
// up to half of it.
func (g *Getter) backoff(try int) time.Duration {
	base := g.Backoff
	if base <= 0 {
		base = DefaultBackoff
	}
	d := min(base<<min(try, 20), g.maxBackoff())
	return d - rand.N(d/2+1)
}

func (g *Getter) maxBackoff() time.Duration {
	if g.MaxBackoff <= 0 {
		return DefaultMaxBackoff
	}
	return g.MaxBackoff
}

func (g *Getter) sleep(ctx context.Context, d time.Duration) error {
	if g.Sleep != nil {
		return g.Sleep(ctx, d)
	}
	return pause.Sleep(ctx, d)
}

// retryAfter reads a Retry-After header (seconds or an HTTP date); 0 when absent or unreadable.
func retryAfter(v string, now time.Time) time.Duration {
	if v == "" {
		return 0
	}
	if s, err := strconv.Atoi(v); err == nil && s >= 0 {
		return time.Duration(s) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}
