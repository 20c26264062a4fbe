package handlers

import (
	"errors"
	"net"
	"net/url"
	"strconv"
	"strings"
)

// ParseOrigin returns the canonical form of an origin scheme://host[:port], the form trusted origins
// are kept and compared in (CONTRACT 1.7): scheme and host lower-cased (both are case-insensitive,
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
