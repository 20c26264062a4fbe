package input

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
)

// TypeError reports a value that does not fit a parameter's declared type
// (docs/API.md "Parameters and bodies"). The handler reports it as rest_invalid_param.
type TypeError struct {
	Want string // the declared type: "integer", "number", "boolean", "string" or "array"
}

// Error implements error. The handler prefixes the parameter name.
func (e *TypeError) Error() string { return "must be of type " + e.Want }

// blanks are the characters "surrounding blanks" and the \s of docs/API.md "Parameters and bodies"
// stand for: PCRE's \s, which is also the set PHP's is_numeric skips.
const blanks = " \t\n\v\f\r"

// Int coerces v to a 64-bit integer. It accepts a JSON integer, a JSON number
// whose exact value is a whole number (1.0, 1e2, 250e-1; not 1.5 or 1e-2),
// and a string matching ^\s*[+-]?[0-9]+\s*$ (leading zeros allowed, so "007"
// is 7). The value must fit in an int64. The check is done on the decimal
// text, not through a float64, so 9007199254740993.0 is exact and
// 1.0000000000000000001 is rejected.
func Int(v any) (int64, error) {
	fail := &TypeError{Want: "integer"}
	switch v := v.(type) {
	case json.Number:
		d, ok := parseDecimal(string(v), false)
		if !ok {
			return 0, fail
		}
		n, ok := d.int64()
		if !ok {
			return 0, fail
		}
		return n, nil
	case string:
		s := strings.Trim(v, blanks)
		digits := strings.TrimLeft(s, "+-")
		if len(s)-len(digits) > 1 || !allDigits(digits) {
			return 0, fail
		}
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return 0, fail
		}
		return n, nil
	}
	return 0, fail
}

// Number coerces v to a float64. It accepts a JSON number and a decimal string
// with surrounding blanks, an optional sign and an optional exponent; the
// string grammar is PHP's is_numeric, so "5." and ".5" are numbers, while hex,
// "Inf", "NaN", "1_000" and "" are not. A value too large for a float64 is
// rejected; one too small to represent becomes 0.
func Number(v any) (float64, error) {
	fail := &TypeError{Want: "number"}
	var s string
	switch v := v.(type) {
	case json.Number:
		if _, ok := parseDecimal(string(v), false); !ok {
			return 0, fail
		}
		s = string(v)
	case string:
		s = strings.Trim(v, blanks)
		if _, ok := parseDecimal(s, true); !ok {
			return 0, fail
		}
	default:
		return 0, fail
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(f, 0) {
		return 0, fail
	}
	return f, nil
}

// Bool coerces v to a boolean. It accepts JSON true and false; the JSON
// integers 0 and 1 (not 1.0, which PHP decodes as a float and the reference
// rejects); and the strings "true", "false", "1", "0", "yes" and "no" in any
// ASCII case. Strings are not trimmed: " true" is rejected, as in the
// reference's rest_is_boolean, since docs/API.md "Parameters and bodies" allows blanks only around
// integers and numbers.
func Bool(v any) (bool, error) {
	fail := &TypeError{Want: "boolean"}
	switch v := v.(type) {
	case bool:
		return v, nil
	case json.Number:
		switch v {
		case "0", "-0":
			return false, nil
		case "1":
			return true, nil
		}
	case string:
		for _, w := range [...]string{"true", "1", "yes"} {
			if asciiEqualFold(v, w) {
				return true, nil
			}
		}
		for _, w := range [...]string{"false", "0", "no"} {
			if asciiEqualFold(v, w) {
				return false, nil
			}
		}
	}
	return false, fail
}

// String coerces v to a string. It accepts a JSON string, and a JSON number,
// which becomes the shortest text of its exact decimal value: "1.50" gives
// "1.5", "1e2" gives "100" and 12345678901234567890 stays exact. The layout
// is ECMAScript's Number#toString applied to the exact digits: plain decimals
// from 1e-6 up to below 1e21, exponent form ("1e+21", "1.5e-7") beyond.
func String(v any) (string, error) {
	fail := &TypeError{Want: "string"}
	switch v := v.(type) {
	case string:
		return v, nil
	case json.Number:
		d, ok := parseDecimal(string(v), false)
		if !ok {
			return "", fail
		}
		return d.String(), nil
	}
	return "", fail
}

// truthyStrings are the strings the reference's tribe_is_truthy reads as true.
var truthyStrings = [...]string{"1", "enable", "enabled", "on", "y", "yes", "true"}

// Truthy coerces a scalar with the reference's truthiness rule: true iff v is
// boolean true, a non-zero number, or a string whose ASCII lower-case form is
// one of 1, enable, enabled, on, y, yes, true. Every other string is false,
// "" and " yes" included. Arrays, objects and nil are rejected.
func Truthy(v any) (bool, error) {
	switch v := v.(type) {
	case bool:
		return v, nil
	case json.Number:
		d, ok := parseDecimal(string(v), false)
		if !ok {
			return false, &TypeError{Want: "boolean"}
		}
		return d.digits != "", nil
	case string:
		for _, w := range truthyStrings {
			if asciiEqualFold(v, w) {
				return true, nil
			}
		}
		return false, nil
	}
	return false, &TypeError{Want: "boolean"}
}

// List coerces v to a list; the caller coerces each item to the list's item
// type. A JSON array (or PHP bracket array) is returned as it is. A string is
// split on commas, with items trimmed of blanks and empty items dropped, so ""
// and " , " give an empty list: whether an empty list is valid is the
// parameter's business. A single number or boolean becomes a one-item list.
// An object is rejected.
func List(v any) ([]any, error) {
	switch v := v.(type) {
	case []any:
		return v, nil
	case string:
		list := []any{}
		for item := range strings.SplitSeq(v, ",") {
			if item = strings.Trim(item, blanks); item != "" {
				list = append(list, item)
			}
		}
		return list, nil
	case json.Number, bool:
		return []any{v}, nil
	}
	return nil, &TypeError{Want: "array"}
}

// asciiEqualFold is strings.EqualFold without Unicode folding, which would
// let "falſe" (long s) pass for "false"; PHP's strtolower is ASCII-only.
func asciiEqualFold(s, t string) bool {
	if len(s) != len(t) {
		return false
	}
	for i := 0; i < len(s); i++ {
		a, b := s[i], t[i]
		if 'A' <= a && a <= 'Z' {
			a += 'a' - 'A'
		}
		if 'A' <= b && b <= 'Z' {
			b += 'a' - 'A'
		}
		if a != b {
			return false
		}
	}
	return true
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}

// decimal is the exact value of a number's text: ±0.digits × 10^point.
type decimal struct {
	neg    bool
	digits string // significant digits, no leading or trailing zeros; "" is zero
	point  int64
	// hugeExp is set when the exponent has too many digits for point to be
	// computed in an int64; point is then unset and the value is
	// ±0.digits × 10^(±expDigits + pointAdj). Only String needs the exact
	// figure; everything else only needs to know it is far out of range.
	hugeExp   bool
	expNeg    bool
	expDigits string
	pointAdj  int64
}

// maxExpDigits keeps point, which also absorbs the length of the digits,
// far away from int64 overflow.
const maxExpDigits = 15

// parseDecimal parses a JSON number, or with loose set the grammar of PHP's
// is_numeric after trimming: [+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?.
func parseDecimal(s string, loose bool) (decimal, bool) {
	var d decimal
	i := 0
	if i < len(s) && (s[i] == '-' || (loose && s[i] == '+')) {
		d.neg = s[i] == '-'
		i++
	}
	start := i
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	intPart := s[start:i]
	if !loose && (intPart == "" || (intPart[0] == '0' && len(intPart) > 1)) {
		return d, false
	}
	var fracPart string
	if i < len(s) && s[i] == '.' {
		i++
		start = i
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		fracPart = s[start:i]
		if fracPart == "" && !loose {
			return d, false
		}
	}
	if intPart == "" && fracPart == "" {
		return d, false
	}
	var exp int64
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			d.expNeg = s[i] == '-'
			i++
		}
		start = i
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		if start == i {
			return d, false
		}
		d.expDigits = strings.TrimLeft(s[start:i], "0")
		if len(d.expDigits) > maxExpDigits {
			d.hugeExp = true
		} else if d.expDigits != "" {
			exp, _ = strconv.ParseInt(d.expDigits, 10, 64)
			if d.expNeg {
				exp = -exp
			}
		}
	}
	if i != len(s) {
		return d, false
	}

	// Significant digits: skip leading zeros of the integer part and of the
	// fraction (each moves the point left), then drop trailing zeros.
	d.pointAdj = int64(len(intPart))
	digits := strings.TrimLeft(intPart, "0")
	d.pointAdj -= int64(len(intPart) - len(digits))
	if digits == "" {
		trimmed := strings.TrimLeft(fracPart, "0")
		d.pointAdj -= int64(len(fracPart) - len(trimmed))
		digits = trimmed
	} else {
		digits += fracPart
	}
	d.digits = strings.TrimRight(digits, "0")
	if d.digits == "" {
		return decimal{}, true // zero, whatever its sign and exponent
	}
	d.point = exp + d.pointAdj
	return d, true
}

// int64 returns the value if it is a whole number that fits an int64.
func (d decimal) int64() (int64, bool) {
	if d.digits == "" {
		return 0, true
	}
	// A huge exponent is either far too large or, with non-zero digits
	// that end in a non-zero digit, leaves a fraction.
	if d.hugeExp || d.point < int64(len(d.digits)) || d.point > 19 {
		return 0, false
	}
	s := d.digits + strings.Repeat("0", int(d.point)-len(d.digits))
	if d.neg {
		s = "-" + s
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}

// String lays the digits out as ECMAScript's Number#toString does.
func (d decimal) String() string {
	if d.digits == "" {
		return "0"
	}
	var b strings.Builder
	if d.neg {
		b.WriteByte('-')
	}
	k, n := int64(len(d.digits)), d.point
	switch {
	case d.hugeExp:
	case k <= n && n <= 21:
		b.WriteString(d.digits)
		b.WriteString(strings.Repeat("0", int(n-k)))
		return b.String()
	case 0 < n && n <= 21:
		b.WriteString(d.digits[:n])
		b.WriteByte('.')
		b.WriteString(d.digits[n:])
		return b.String()
	case -6 < n && n <= 0:
		b.WriteString("0.")
		b.WriteString(strings.Repeat("0", int(-n)))
		b.WriteString(d.digits)
		return b.String()
	}
	b.WriteByte(d.digits[0])
	if k > 1 {
		b.WriteByte('.')
		b.WriteString(d.digits[1:])
	}
	b.WriteByte('e')
	if !d.hugeExp {
		if n-1 >= 0 {
			b.WriteByte('+')
		}
		b.WriteString(strconv.FormatInt(n-1, 10))
		return b.String()
	}
	// The printed exponent is ±expDigits + pointAdj - 1, and expDigits
	// dwarfs the adjustment, so the sign is the exponent's own.
	adj := d.pointAdj - 1
	if d.expNeg {
		b.WriteByte('-')
		adj = -adj
	} else {
		b.WriteByte('+')
	}
	b.WriteString(addDecimal(d.expDigits, adj))
	return b.String()
}

// addDecimal returns the decimal text of m+delta, where m is the decimal text
// of a number larger than |delta| (so the result is positive).
func addDecimal(m string, delta int64) string {
	b := []byte(m)
	neg := delta < 0
	carry := delta
	if neg {
		carry = -delta
	}
	for i := len(b) - 1; i >= 0 && carry != 0; i-- {
		digit := int64(b[i] - '0')
		if neg {
			digit -= carry % 10
			carry /= 10
			if digit < 0 {
				digit += 10
				carry++
			}
		} else {
			digit += carry % 10
			carry /= 10
			if digit > 9 {
				digit -= 10
				carry++
			}
		}
		b[i] = byte('0' + digit)
	}
	if carry != 0 { // only when adding: a new leading digit
		b = append([]byte(strconv.FormatInt(carry, 10)), b...)
	}
	return strings.TrimLeft(string(b), "0")
}
