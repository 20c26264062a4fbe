package datetime

import (
	"fmt"
	"strings"
	"sync"
	"time"
)

// Zone is an event or site time zone.
type Zone struct {
	// Name is the zone as the client wrote it, trimmed, e.g. "Europe/Paris", "UTC", "UTC+5",
	// "UTC-3:30" or "UTC+5.5". A "UTC" prefix is always spelled in upper case.
	Name string
	Loc  *time.Location
}

// maxOffsetHours bounds the hours of a "UTC±…" zone: real offsets run from -12 to +14.
const maxOffsetHours = 14

// quarterHours maps the fractions of a "UTC±H.f" zone to minutes: WordPress stores offsets as decimal
// hours and only offers quarter hours.
var quarterHours = map[string]int{".0": 0, ".00": 0, ".25": 15, ".5": 30, ".50": 30, ".75": 45}

// locations caches the IANA zones already loaded: time.LoadLocation reads and parses a file on every
// call, and zones are parsed each time an event is decoded. Only names that loaded are kept, so the
// cache is bounded by the size of the tz database.
var locations sync.Map // string → *time.Location

// ParseZone parses a time zone as records and the site setting may hold it, a superset of what
// docs/API.md "Event fields" accepts from clients (handlers narrow the fractional hours to ".5"):
//   - "UTC", in any case;
//   - a fixed offset "UTC±H", "UTC±HH", "UTC±H:MM", "UTC±HH:MM", or WordPress's fractional hours
//     "UTC±H.25", "UTC±H.5", "UTC±H.75" (".0" and ".50" are accepted too), with hours from 0 to 14 and
//     minutes from 0 to 59; the Loc is a time.FixedZone named after the zone;
//   - an IANA name known to time.LoadLocation, made of letters, digits and "/_+-" as tz database names
//     are. "Local" and "" are rejected: the host's zone is not a property of an event.
//
// Blanks around s are ignored. Returns an error for anything else.
func ParseZone(s string) (Zone, error) {
	name := strings.Trim(s, asciiSpace)
	if len(name) >= 3 && strings.EqualFold(name[:3], "UTC") {
		name = "UTC" + name[3:]
		if name == "UTC" {
			return Zone{Name: name, Loc: time.UTC}, nil
		}
		off, ok := parseUTCOffset(name[3:])
		if !ok {
			return Zone{}, fmt.Errorf("datetime: invalid time zone %q", s)
		}
		return Zone{Name: name, Loc: time.FixedZone(name, off)}, nil
	}
	if !isTZName(name) {
		return Zone{}, fmt.Errorf("datetime: invalid time zone %q", s)
	}
	if loc, ok := locations.Load(name); ok {
		return Zone{Name: name, Loc: loc.(*time.Location)}, nil
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return Zone{}, fmt.Errorf("datetime: unknown time zone %q", s)
	}
	locations.Store(name, loc)
	return Zone{Name: name, Loc: loc}, nil
}

// Abbr returns the timezone_abbr of docs/API.md "Event fields" at instant t: for an IANA zone, the abbreviation in
// effect at t ("EST", "CEST", or a numeric form such as "+03" where the database has no letters); for
// "UTC" and "UTC±…" zones, the name itself. The zero Zone has the empty abbreviation.
func (z Zone) Abbr(t time.Time) string {
	if z.Name == "UTC" || z.Fixed() {
		return z.Name
	}
	if z.Loc == nil {
		return ""
	}
	abbr, _ := t.In(z.Loc).Zone()
	return abbr
}

// Fixed reports whether z is a fixed offset ("UTC+5", "UTC-3:30"): a zone the tz database does not
// name, which other software knows only by its offset. No tz database name starts with "UTC" except
// "UTC" itself, so the prefix identifies the zones ParseZone built from offsets even when a Zone was
// assembled by hand.
func (z Zone) Fixed() bool { return z.Name != "UTC" && strings.HasPrefix(z.Name, "UTC") }

// parseUTCOffset parses what follows "UTC" in a fixed-offset zone and returns seconds east of UTC.
func parseUTCOffset(s string) (int, bool) {
	if len(s) < 2 || (s[0] != '+' && s[0] != '-') {
		return 0, false
	}
	sign := 1
	if s[0] == '-' {
		sign = -1
	}
	s = s[1:]
	hs, rest := s, ""
	if i := strings.IndexAny(s, ":."); i >= 0 {
		hs, rest = s[:i], s[i:]
	}
	if len(hs) < 1 || len(hs) > 2 {
		return 0, false
	}
	h, ok := digits(hs)
	if !ok || h > maxOffsetHours {
		return 0, false
	}
	m := 0
	switch {
	case rest == "":
	case rest[0] == ':':
		if len(rest) != 3 {
			return 0, false
		}
		if m, ok = digits(rest[1:]); !ok || m > 59 {
			return 0, false
		}
	default:
		if m, ok = quarterHours[rest]; !ok {
			return 0, false
		}
	}
	return sign * (h*3600 + m*60), true
}

// isTZName reports whether s can be an IANA zone name. The name becomes a file path inside the zoneinfo
// directory, so anything outside the tz database's own alphabet is refused before it reaches the file
// system: that excludes "..", absolute paths and the data files that sit next to the zones.
func isTZName(s string) bool {
	if s == "" || s == "Local" || s[0] == '/' || strings.Contains(s, "..") {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case c == '/' || c == '_' || c == '+' || c == '-':
		default:
			return false
		}
	}
	return true
}
