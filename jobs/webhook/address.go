package webhook

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"syscall"
	"time"
)

// ErrPrivateAddress is returned for a receiver whose address is loopback, private, link-local or
// unspecified, unless its subscription allows private addresses: a webhook must not become a way to
// reach the machine's own network (Standard Webhooks' advice against server-side request forgery).
var ErrPrivateAddress = errors.New("webhook: the receiver's address is loopback, private or link-local (allow it with --allow-private)")

// privateAddr reports whether a is an address a public receiver never has.
func privateAddr(a netip.Addr) bool {
	a = a.Unmap()
	return a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() ||
		a.IsUnspecified() || a.IsInterfaceLocalMulticast()
}

// CheckURL checks a receiver's URL when a subscription is created: absolute, https (or http with
// allowHTTP), without credentials, and, unless allowPrivate, with a host that resolves to public
// addresses only. Delivery checks the addresses again as it connects (dialControl), since DNS may
// answer differently then.
func CheckURL(ctx context.Context, raw string, allowHTTP, allowPrivate bool) error {
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return fmt.Errorf("webhook: the URL does not parse: %w", err)
	case u.Scheme != "https" && !(u.Scheme == "http" && allowHTTP):
		return fmt.Errorf("webhook: the URL must start with https:// (http:// only with --allow-http), not %q", raw)
	case u.Host == "" || u.Hostname() == "":
		return fmt.Errorf("webhook: the URL %q has no host", raw)
	case u.User != nil:
		// The URL is shown by `webhook list` and in logs; receivers authenticate us by the signature.
		return errors.New("webhook: the URL must not hold credentials: the signature authenticates deliveries")
	case u.Fragment != "":
		return errors.New("webhook: the URL must not have a fragment")
	}
	if allowPrivate {
		return nil
	}
	rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	addrs, err := net.DefaultResolver.LookupNetIP(rctx, "ip", u.Hostname())
	if err != nil {
		return fmt.Errorf("webhook: the URL's host does not resolve: %w", err)
	}
	for _, a := range addrs {
		if privateAddr(a) {
			return fmt.Errorf("%w: %s is %s", ErrPrivateAddress, u.Hostname(), a)
		}
	}
	return nil
}

// dialControl refuses a connection to a private address after DNS resolution, as it is made: a host
// that resolved to a public address when the subscription was created and to a private one now (DNS
// rebinding) is refused all the same.
func dialControl(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("webhook: dial %s: %w", address, err)
	}
	if privateAddr(ap.Addr()) {
		return fmt.Errorf("%w: %s", ErrPrivateAddress, ap.Addr())
	}
	return nil
}

// newClient is the HTTP client of deliveries: no proxy (it would connect in our place, past the
// address check), no redirects (a 3xx is the answer, and a failure), and the delivery timeout.
func newClient(timeout time.Duration, allowPrivate bool) *http.Client {
	d := &net.Dialer{Timeout: timeout}
	if !allowPrivate {
		d.Control = dialControl
	}
	t := &http.Transport{
		DialContext:         d.DialContext,
		TLSHandshakeTimeout: timeout,
		MaxIdleConnsPerHost: 2,
		IdleConnTimeout:     90 * time.Second,
		ForceAttemptHTTP2:   true,
	}
	return &http.Client{
		Transport:     t,
		Timeout:       timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}
