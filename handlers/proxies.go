package handlers

import (
	"fmt"
	"net/http"
	"net/netip"
	"strings"
)

// Behind a reverse proxy every connection comes from the proxy: the failure throttle, the rate limits
// and the request log would count and name every client as one. X-Forwarded-For says who the client
// was, but anyone can send it, so it is read only from the proxies the operator names
// (Config.TrustedProxies, CALENDAR_TRUSTED_PROXIES), as Caddy's trusted_proxies and nginx's real_ip
// module do: the client is the right-most address of the header that is not a trusted proxy, each
// trusted hop having appended the address it was reached from.

// ParseProxies reads a comma-separated list of IP addresses and CIDR prefixes (CALENDAR_TRUSTED_PROXIES).
func ParseProxies(list string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, s := range strings.Split(list, ",") {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		p, err := netip.ParsePrefix(s)
		if err != nil {
			a, aerr := netip.ParseAddr(s)
			if aerr != nil || a.Zone() != "" {
				return nil, fmt.Errorf("%q is not an IP address or a CIDR prefix", s)
			}
			p = netip.PrefixFrom(a, a.BitLen())
		}
		out = append(out, p.Masked())
	}
	return out, nil
}

// trustedProxies are the proxies X-Forwarded-For is read from.
type trustedProxies []netip.Prefix

func (t trustedProxies) has(a netip.Addr) bool {
	for _, p := range t {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// clientAddr is the client's IP address: the connection's remote end, or, when that is a trusted
// proxy, the right-most address of X-Forwarded-For that is not one (docs/API.md "Authentication and permissions", "Limits" count by it).
// A hop that does not read as an address ends the walk at the proxy that sent it.
func (h *Handler) clientAddr(r *http.Request) string {
	ap, err := netip.ParseAddrPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	// One IPv4 client may arrive as 192.0.2.1 or ::ffff:192.0.2.1.
	client := ap.Addr().Unmap().WithZone("")
	if len(h.proxies) == 0 || !h.proxies.has(client) {
		return client.String()
	}
	hops := strings.Split(strings.Join(r.Header.Values("X-Forwarded-For"), ","), ",")
	for i := len(hops) - 1; i >= 0 && h.proxies.has(client); i-- {
		hop, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
		if err != nil {
			break
		}
		client = hop.Unmap().WithZone("")
	}
	return client.String()
}
