package handlers

import (
	"errors"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// ParseOrigin returns the canonical form of an origin scheme://host[:port], the form trusted origins
// are kept and compared in (docs/API.md "Responses"): scheme and host lower-cased (both are case-insensitive,
// RFC 3986 3.1 and 3.2.2), and the port dropped when it is the default of http (80) or https (443), as
// browsers serialise an Origin header, so that https://App.example:443 in the configuration matches
// the https://app.example a browser sends. Other schemes (an app's capacitor://localhost) keep any port
// they name. Anything that is not an origin fails: a path (even a lone /), query, fragment, user info,
// a missing host, an empty or out-of-range port, and "null", which every sandboxed page sends and
// which must therefore never be trusted.
func ParseOrigin(s string) (string, error) {
	u, err := url.Parse(s)
	switch {
	case err != nil:
		return "", err
	case u.Scheme == "" || u.Host == "" || u.Opaque != "":
		return "", errors.New("want scheme://host[:port]")
	case u.User != nil || u.Path != "" || u.RawQuery != "" || u.ForceQuery || u.Fragment != "":
		return "", errors.New("an origin has no user info, path, query or fragment")
	}
	return canonicalOrigin(u)
}

// canonicalOrigin is the origin of u in ParseOrigin's form; the rest of u is ignored.
func canonicalOrigin(u *url.URL) (string, error) {
	scheme, host, port := strings.ToLower(u.Scheme), strings.ToLower(u.Hostname()), u.Port()
	if host == "" {
		return "", errors.New("want scheme://host[:port]")
	}
	if port != "" || strings.HasSuffix(u.Host, ":") {
		n, err := strconv.Atoi(port)
		if err != nil || n < 1 || n > 65535 {
			return "", errors.New("the port must be from 1 to 65535")
		}
		port = strconv.Itoa(n) // https://h:0443 is https://h:443
	}
	if scheme == "http" && port == "80" || scheme == "https" && port == "443" {
		port = ""
	}
	if port == "" {
		if strings.Contains(host, ":") {
			host = "[" + host + "]" // an IPv6 address keeps its brackets
		}
		return scheme + "://" + host, nil
	}
	return scheme + "://" + net.JoinHostPort(host, port), nil
}

// trustedOrigins is the set of CALENDAR_CORS_TRUSTED_ORIGINS, in ParseOrigin's form.
type trustedOrigins map[string]bool

func newTrustedOrigins(list []string) trustedOrigins {
	t := trustedOrigins{}
	for _, o := range list {
		t[o] = true
	}
	return t
}

// has reports whether the Origin header value origin is trusted. A value that is not an origin
// ("null" included) never is.
func (t trustedOrigins) has(origin string) bool {
	if len(t) == 0 || origin == "" {
		return false
	}
	o, err := ParseOrigin(origin)
	return err == nil && t[o]
}

// crossSite reports whether rq is a write a browser sent from a page of another site in a form that
// needs no CORS preflight (docs/API.md "Authentication and permissions"). It reads headers only: it runs before the credentials, the
// body and the parameters are looked at.
//
// net/http.CrossOriginProtection makes the same Sec-Fetch-Site/Origin judgement but refuses every
// cross-origin write, and this API must accept the preflighted ones (a front end on another origin
// writing JSON with its own Authorization header). Only a write whose body a form, a beacon or a simple
// fetch can send is refused here: a browser asks before sending any other, and the preflight fails for
// a request with the browser's credentials unless the origin is trusted (1.7).
func (h *Handler) crossSite(rq *request) bool {
	switch rq.method {
	case http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete:
	default:
		return false
	}
	r := rq.r
	if !preflightFree(r.Header.Get("Content-Type")) {
		return false
	}
	origin := r.Header.Get("Origin")
	switch r.Header.Get("Sec-Fetch-Site") {
	case "cross-site", "same-site":
	case "":
		// A browser without Fetch Metadata: the Origin tells. No Origin at all is not a browser's
		// cross-site write (curl, servers, apps).
		if origin == "" || h.sameOrigin(rq, origin) {
			return false
		}
	default: // same-origin, or none (the user typed it)
		return false
	}
	return !h.trusted.has(origin)
}

// sameOrigin reports whether the Origin header value origin is the service's own origin, the
// scheme://host[:port] of {origin} (docs/API.md "Routes").
func (h *Handler) sameOrigin(rq *request, origin string) bool {
	o, err := ParseOrigin(origin)
	if err != nil {
		return false // "null" is no one's origin
	}
	u, err := url.Parse(rq.origin)
	if err != nil {
		return false
	}
	own, err := canonicalOrigin(u)
	return err == nil && o == own
}

// preflightFree reports whether a Content-Type value is absent or one of the CORS-safelisted types, the
// only ones a browser sends to another origin without a preflight, compared by their essence (type and
// subtype, case-insensitive, parameters ignored). An absent type matters too: the parameters of a body
// the service cannot read still come from the query string (docs/API.md "Parameters and bodies").
func preflightFree(contentType string) bool {
	essence, _, _ := strings.Cut(contentType, ";")
	switch strings.ToLower(strings.TrimSpace(essence)) {
	case "", "application/x-www-form-urlencoded", "multipart/form-data", "text/plain":
		return true
	}
	return false
}
