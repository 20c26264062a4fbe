// Package cost parses and formats event costs (docs/API.md "Event fields").
//
// # Basics
//
// The caller turns the request's cost (a string, a number or an array) into
// items, sanitises them (Appendix C.2) and drops empty ones. Parse computes the
// Details stored with the items at write time; Format and Price derive the
// event's "cost" and the json_ld offers "price" from the items and Details on
// read, with the site's default currency symbol and position.
//
// # Caveats
//
// Numbers are compared exactly, as decimals written in digits: there is no
// floating-point rounding, so "0.1" equals "0.10" and two 20-digit prices
// that differ in the last digit stay distinct. A number keeps the digits it
// was written with (only a decimal comma becomes a point): "12,50" is stored
// as "12.50" and "007" as "007".
//
// Where Appendix D is silent, this package decides:
//   - A text item whose slug normalisation is empty (such as "???")
//     contributes no value, rather than "".
//   - Values is never nil, so that it encodes as a JSON array.
//   - A default position other than Postfix is treated as Prefix.
package cost

import (
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/calendard/calendard/storage/slug"
)

// Currency positions, as stored in Details.Position and accepted as the
// default position by Format and Price.
const (
	Prefix  = "prefix"
	Postfix = "postfix"
)

// free is how a zero amount is shown in the formatted cost.
const free = "Free"

// Details is what is stored with an event's cost items, computed at write
// time by Parse. It is the event's cost_details (docs/API.md "The event object") less the
// currency code, which is always "".
type Details struct {
	// Values holds the number tokens of the numeric items and the
	// slug-normalised text items, without duplicates, sorted by numeric value
	// (a text counting as 0).
	Values []string
	// Symbol is the currency symbol found in the numeric items, or "".
	Symbol string
	// Position is Prefix or Postfix when Symbol is always on one side of
	// the numbers, else "".
	Position string
}

// numberToken is Appendix D's number token.
var numberToken = regexp.MustCompile(`[0-9]+([.,][0-9]+)?`)

// Parse computes the Details of the cost items. The items must already be
// sanitised and non-empty.
func Parse(items []string) Details {
	type value struct {
		text string
		num  decimal // zero for a text value, which sorts as 0
	}
	var (
		values    []value
		seenNums  = map[decimal]bool{}
		seenTexts = map[string]bool{}
		numeric   []string  // the numeric items
		tokens    [][][]int // the indexes of their number tokens
	)
	for _, item := range items {
		locs := numberToken.FindAllStringIndex(item, -1)
		if len(locs) == 0 {
			text := slug.Normalize(item)
			if text != "" && !seenTexts[text] {
				seenTexts[text] = true
				values = append(values, value{text: text})
			}
			continue
		}
		numeric = append(numeric, item)
		tokens = append(tokens, locs)
		for _, loc := range locs {
			text := strings.ReplaceAll(item[loc[0]:loc[1]], ",", ".")
			num := parseDecimal(text)
			if !seenNums[num] {
				seenNums[num] = true
				values = append(values, value{text: text, num: num})
			}
		}
	}
	// Stable, so that texts and zeros keep their input order (reference).
	slices.SortStableFunc(values, func(a, b value) int { return a.num.cmp(b.num) })

	d := Details{Values: make([]string, len(values))}
	for i, v := range values {
		d.Values[i] = v.text
	}
	d.Symbol, d.Position = symbol(numeric, tokens)
	return d
}

// symbol finds the currency symbol and its position in the numeric items,
// given the indexes of their number tokens.
func symbol(items []string, tokens [][][]int) (sym, position string) {
	for i, item := range items {
		var rest strings.Builder
		prev := 0
		for _, loc := range tokens[i] {
			rest.WriteString(item[prev:loc[0]])
			prev = loc[1]
		}
		rest.WriteString(item[prev:])
		r := clean(rest.String())
		if r == "" || i > 0 && r != sym {
			return "", ""
		}
		sym = r
	}
	if sym == "" {
		return "", ""
	}
	before, after := true, true
	for i, item := range items {
		locs := tokens[i]
		before = before && strings.Contains(clean(item[:locs[0][0]]), sym)
		after = after && strings.Contains(clean(item[locs[len(locs)-1][1]:]), sym)
	}
	switch {
	case before:
		return sym, Prefix
	case after:
		return sym, Postfix
	}
	return sym, ""
}

// clean deletes white space and the range separators "- – — /".
func clean(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) || r == '-' || r == '–' || r == '—' || r == '/' {
			return -1
		}
		return r
	}, s)
}

// Format returns the formatted cost ("" when there are no items). defSymbol
// and defPosition are the site defaults (CALENDAR_CURRENCY_SYMBOL and
// CALENDAR_CURRENCY_POSITION), used when d has no symbol or no position.
func Format(items []string, d Details, defSymbol, defPosition string) string {
	if len(items) == 0 {
		return ""
	}
	lo, hi, ok := numericRange(d.Values)
	if !ok {
		return items[0]
	}
	sym, position := d.Symbol, d.Position
	if sym == "" {
		sym = defSymbol
	}
	if position == "" {
		position = defPosition
	}
	render := func(v string) string {
		switch {
		case parseDecimal(v).isZero():
			return free
		case position == Postfix:
			return v + sym
		}
		return sym + v
	}
	if lo == hi {
		return render(lo)
	}
	return render(lo) + " – " + render(hi)
}

// Price returns the json_ld offers price (docs/API.md "The event object"): the lowest numeric
// value as written in d.Values ("0" when free), or the formatted cost when
// there is no numeric value. ok is false when there are no items, and so no
// offers.
func Price(items []string, d Details, defSymbol, defPosition string) (price string, ok bool) {
	if len(items) == 0 {
		return "", false
	}
	if lo, _, ok := numericRange(d.Values); ok {
		return lo, true
	}
	return Format(items, d, defSymbol, defPosition), true
}

// numericRange returns the smallest and the largest numeric value in values,
// as written there. A text value is never numeric: text items contain no
// digits, and slug normalisation only adds them inside %xx groups.
func numericRange(values []string) (lo, hi string, ok bool) {
	var loNum, hiNum decimal
	for _, v := range values {
		if !isNumber(v) {
			continue
		}
		n := parseDecimal(v)
		if !ok || n.cmp(loNum) < 0 {
			lo, loNum = v, n
		}
		if !ok || n.cmp(hiNum) > 0 {
			hi, hiNum = v, n
		}
		ok = true
	}
	return lo, hi, ok
}

// isNumber reports whether s is a normalised number token,
// [0-9]+(\.[0-9]+)?.
func isNumber(s string) bool {
	whole, frac, hasPoint := strings.Cut(s, ".")
	return allDigits(whole) && (!hasPoint || allDigits(frac))
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// decimal is a non-negative decimal number in canonical form, which makes it
// comparable with == and usable as a map key: the digits of its whole part
// without leading zeros and of its fraction without trailing zeros. The zero
// value is 0.
type decimal struct {
	whole, frac string
}

// parseDecimal parses a normalised number token (see isNumber).
func parseDecimal(s string) decimal {
	whole, frac, _ := strings.Cut(s, ".")
	return decimal{strings.TrimLeft(whole, "0"), strings.TrimRight(frac, "0")}
}

func (d decimal) isZero() bool { return d == decimal{} }

// cmp compares d and e like cmp.Compare.
func (d decimal) cmp(e decimal) int {
	if c := len(d.whole) - len(e.whole); c != 0 {
		return c
	}
	if c := strings.Compare(d.whole, e.whole); c != 0 {
		return c
	}
	// Without trailing zeros, a fraction that is a proper prefix of another
	// is the smaller one, which is what string order says.
	return strings.Compare(d.frac, e.frac)
}
