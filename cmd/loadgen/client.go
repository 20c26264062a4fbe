package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode"
	"unicode/utf8"
)

// api is the namespace of every route, after the optional language prefix.
const api = "/calendar/events/v1"

// prefixes are the language prefixes of the routes; "" serves the site's default language.
var prefixes = []string{"", "/nl", "/en", "/fr", "/de", "/it", "/pl", "/es"}

// client sends the requests of every simulated client over one pool of keep-alive connections, as a
// reverse proxy in front of the service would.
type client struct {
	http    *http.Client
	base    string
	timeout time.Duration
}

func newClient(cfg config) *client {
	dialer := &net.Dialer{Timeout: 5 * time.Second, Control: loopbackOnly}
	transport := &http.Transport{
		Proxy:               nil, // a proxy would take the requests off the loopback interface
		DialContext:         dialer.DialContext,
		MaxIdleConns:        cfg.clients,
		MaxIdleConnsPerHost: cfg.clients,
		IdleConnTimeout:     90 * time.Second,
		// Go's transport asks for gzip and decompresses unseen unless told not to (config.gzip).
		DisableCompression: !cfg.gzip,
	}
	return &client{
		http: &http.Client{
			Transport: transport,
			// A redirect could point anywhere; it is reported as a non-2xx response instead.
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		},
		base:    cfg.base.String(),
		timeout: cfg.timeout,
	}
}

// loopbackOnly runs before every connection with the address actually dialled, after name
// resolution: whatever "localhost" resolves to, only loopback addresses are reached.
func loopbackOnly(_, address string, _ syscall.RawConn) error {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return err
	}
	if ip, err := netip.ParseAddr(host); err != nil || !ip.IsLoopback() {
		return fmt.Errorf("refusing to connect to %s: not a loopback address", address)
	}
	return nil
}

// do sends one GET; body receives the response body (io.Discard under load).
func (c *client) do(ctx context.Context, path string, body io.Writer) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+path, nil)
	if err != nil {
		return 0, err
	}
	res, err := c.http.Do(req)
	if err != nil {
		return 0, err
	}
	defer res.Body.Close()
	// Reading the whole body is part of the latency a client sees, and lets the connection be reused.
	_, err = io.Copy(body, res.Body)
	return res.StatusCode, err
}

func (c *client) getJSON(ctx context.Context, path string, v any) error {
	var buf strings.Builder
	status, err := c.do(ctx, path, &buf)
	if err != nil {
		return err
	}
	if status != http.StatusOK {
		return fmt.Errorf("GET %s: status %d: %.200s", path, status, buf.String())
	}
	if err := json.Unmarshal([]byte(buf.String()), v); err != nil {
		return fmt.Errorf("GET %s: %w", path, err)
	}
	return nil
}

// targets is what the requests are made of, read from the server before the run.
type targets struct {
	// categories and tags hold each term twice, by ID and by slug: the filters accept both.
	categories, tags []string
	langs            []*langTargets
}

// langTargets is the data of one language prefix.
type langTargets struct {
	prefix string
	// pages is the number of pages of 10 upcoming events.
	pages  int
	venues []venueTarget
	// words come from event titles, so searches find something.
	words []string
}

type venueTarget struct {
	id       uint64
	lat, lng float64
	geo      bool
}

// discover reads terms and, per language, venues and a page of upcoming events.
func discover(ctx context.Context, c *client) (*targets, error) {
	t := &targets{}
	for _, tax := range []struct {
		route string
		dst   *[]string
	}{{"categories", &t.categories}, {"tags", &t.tags}} {
		for page := 1; page <= 3; page++ {
			var body map[string]json.RawMessage
			if err := c.getJSON(ctx, api+"/"+tax.route+"?per_page=100&page="+strconv.Itoa(page), &body); err != nil {
				if page > 1 {
					break // past the last page
				}
				return nil, err
			}
			var terms []struct {
				ID   uint64 `json:"id"`
				Slug string `json:"slug"`
			}
			if err := json.Unmarshal(body[tax.route], &terms); err != nil {
				return nil, fmt.Errorf("%s: %w", tax.route, err)
			}
			for _, term := range terms {
				*tax.dst = append(*tax.dst, strconv.FormatUint(term.ID, 10), term.Slug)
			}
			if len(terms) < 100 {
				break
			}
		}
	}
	for _, prefix := range prefixes {
		l := &langTargets{prefix: prefix}
		var venues struct {
			Venues []struct {
				ID     uint64   `json:"id"`
				GeoLat *float64 `json:"geo_lat"`
				GeoLng *float64 `json:"geo_lng"`
			} `json:"venues"`
		}
		if err := c.getJSON(ctx, prefix+api+"/venues?per_page=100", &venues); err != nil {
			return nil, err
		}
		for _, v := range venues.Venues {
			vt := venueTarget{id: v.ID}
			if v.GeoLat != nil && v.GeoLng != nil {
				vt.lat, vt.lng, vt.geo = *v.GeoLat, *v.GeoLng, true
			}
			l.venues = append(l.venues, vt)
		}
		var events struct {
			Events []struct {
				Title string `json:"title"`
			} `json:"events"`
			Total int `json:"total"`
		}
		if err := c.getJSON(ctx, prefix+api+"/events?per_page=50", &events); err != nil {
			return nil, err
		}
		if events.Total == 0 {
			continue
		}
		l.pages = (events.Total + 9) / 10
		seen := map[string]bool{}
		for _, e := range events.Events {
			for _, w := range strings.FieldsFunc(strings.ToLower(e.Title), func(r rune) bool { return !unicode.IsLetter(r) }) {
				if utf8.RuneCountInString(w) >= 4 && !seen[w] {
					seen[w] = true
					l.words = append(l.words, w)
				}
			}
		}
		t.langs = append(t.langs, l)
	}
	if len(t.langs) == 0 {
		return nil, errors.New("no upcoming events in any language; fill the store first (calendard seed)")
	}
	return t, nil
}

// query builds a path of the events list of l.
func (l *langTargets) query(v url.Values) string {
	return l.prefix + api + "/events?" + v.Encode()
}
