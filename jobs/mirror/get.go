package mirror

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/calendard/calendard/storage/kv"
)

// Defaults of a Getter.
const (
	DefaultAttempts   = 5
	DefaultBackoff    = 500 * time.Millisecond
	DefaultMaxBackoff = 30 * time.Second
	// maxBody bounds a page read into memory: a TEC list page of 50 events is a few hundred KB.
	maxBody = 64 << 20
)

// Response is a page a Getter fetched: its status, headers and body.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

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
	// Sleep waits d or until ctx is done; tests record the waits through it. Defaults to a timer.
	Sleep func(ctx context.Context, d time.Duration) error

	requests atomic.Int64
}

// Requests counts the requests sent so far, retries included.
func (g *Getter) Requests() int64 { return g.requests.Load() }

// Get fetches url. A network error, 429 or 5xx is retried after a back-off (a Retry-After header's
// wait when the site sends one, up to MaxBackoff) until Attempts are spent; then, or at once for any
// other status that is not 2xx, it returns a *StatusError (or the network error). It returns ctx's
// error as soon as ctx is done.
func (g *Getter) Get(ctx context.Context, url string) (*Response, error) {
	attempts := g.Attempts
	if attempts <= 0 {
		attempts = DefaultAttempts
	}
	var err error
	for try := 0; ; try++ {
		var resp *Response
		resp, err = g.get(ctx, url)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		var wait time.Duration
		switch {
		case err != nil:
		case resp.Status >= 200 && resp.Status < 300:
			return resp, nil
		case resp.Status == http.StatusTooManyRequests || resp.Status >= 500:
			err = statusError(url, resp)
			wait = retryAfter(resp.Header.Get("Retry-After"), time.Now())
		default:
			return resp, statusError(url, resp)
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

func (g *Getter) get(ctx context.Context, url string) (*Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
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
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", url, err)
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
	return kv.Sleep(ctx, d)
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
