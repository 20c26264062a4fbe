package cost_test

import (
	"fmt"
	"math/big"
	"regexp"
	"strings"
	"testing"

	"github.com/calendard/calendard/storage/cost"
	"github.com/google/go-cmp/cmp"
)

// The site defaults of README "Configuration".
const (
	defSymbol   = "$"
	defPosition = cost.Prefix
)

var costTests = []struct {
	name      string
	items     []string
	want      cost.Details
	wantCost  string
	wantPrice string
}{
	// Appendix D examples.
	{
		name:     "postfix symbol",
		items:    []string{"20$"},
		want:     cost.Details{Values: []string{"20"}, Symbol: "$", Position: cost.Postfix},
		wantCost: "20$", wantPrice: "20",
	},
	{
		name:     "range with free",
		items:    []string{"0$", "20$", "30$"},
		want:     cost.Details{Values: []string{"0", "20", "30"}, Symbol: "$", Position: cost.Postfix},
		wantCost: "Free – 30$", wantPrice: "0",
	},
	{
		name:     "default symbol",
		items:    []string{"23"},
		want:     cost.Details{Values: []string{"23"}},
		wantCost: "$23", wantPrice: "23",
	},
	{
		name:     "currency code prefix",
		items:    []string{"USD 15"},
		want:     cost.Details{Values: []string{"15"}, Symbol: "USD", Position: cost.Prefix},
		wantCost: "USD15", wantPrice: "15",
	},
	{
		name:     "text",
		items:    []string{"Donation"},
		want:     cost.Details{Values: []string{"donation"}},
		wantCost: "Donation", wantPrice: "Donation",
	},
	{
		name:     "number and text",
		items:    []string{"10$", "Donation"},
		want:     cost.Details{Values: []string{"donation", "10"}, Symbol: "$", Position: cost.Postfix},
		wantCost: "10$", wantPrice: "10",
	},
	{
		name:     "several words",
		items:    []string{"Pay what you want"},
		want:     cost.Details{Values: []string{"pay-what-you-want"}},
		wantCost: "Pay what you want", wantPrice: "Pay what you want",
	},

	// Appendix D judgement bullets.
	{
		name:     "zero is free",
		items:    []string{"0"},
		want:     cost.Details{Values: []string{"0"}},
		wantCost: "Free", wantPrice: "0",
	},
	{
		name:     "postfix symbol after a blank",
		items:    []string{"10 - 20 $"},
		want:     cost.Details{Values: []string{"10", "20"}, Symbol: "$", Position: cost.Postfix},
		wantCost: "10$ – 20$", wantPrice: "10",
	},
	{
		name:     "prefix symbol before a blank",
		items:    []string{"€ 10 - 20"},
		want:     cost.Details{Values: []string{"10", "20"}, Symbol: "€", Position: cost.Prefix},
		wantCost: "€10 – €20", wantPrice: "10",
	},
	{
		name:     "decimal comma",
		items:    []string{"12,50 €"},
		want:     cost.Details{Values: []string{"12.50"}, Symbol: "€", Position: cost.Postfix},
		wantCost: "12.50€", wantPrice: "12.50",
	},
	{
		name:     "several texts show the first",
		items:    []string{"Donation", "Free"},
		want:     cost.Details{Values: []string{"donation", "free"}},
		wantCost: "Donation", wantPrice: "Donation",
	},

	// Duplicates and order.
	{
		name:     "numeric duplicates keep the first",
		items:    []string{"10", "10.0", "10,00 ", "5"},
		want:     cost.Details{Values: []string{"5", "10"}},
		wantCost: "$5 – $10", wantPrice: "5",
	},
	{
		name:     "text duplicates",
		items:    []string{"Free", "FREE", "free!"},
		want:     cost.Details{Values: []string{"free"}},
		wantCost: "Free", wantPrice: "Free",
	},
	{
		name:     "texts and zeros keep input order",
		items:    []string{"3", "0", "Donation", "0.00", "Later"},
		want:     cost.Details{Values: []string{"0", "donation", "later", "3"}},
		wantCost: "Free – $3", wantPrice: "0",
	},
	{
		name:     "zero as written",
		items:    []string{"0.00 €", "15 €"},
		want:     cost.Details{Values: []string{"0.00", "15"}, Symbol: "€", Position: cost.Postfix},
		wantCost: "Free – 15€", wantPrice: "0.00",
	},
	{
		name:     "all free",
		items:    []string{"0", "0.0"},
		want:     cost.Details{Values: []string{"0"}},
		wantCost: "Free", wantPrice: "0",
	},
	{
		name:     "leading zeros as written",
		items:    []string{"007", "10"},
		want:     cost.Details{Values: []string{"007", "10"}},
		wantCost: "$007 – $10", wantPrice: "007",
	},
	{
		name:     "numbers beyond float64 precision",
		items:    []string{"9007199254740993", "9007199254740992"},
		want:     cost.Details{Values: []string{"9007199254740992", "9007199254740993"}},
		wantCost: "$9007199254740992 – $9007199254740993", wantPrice: "9007199254740992",
	},
	{
		name:     "fractions compare by value",
		items:    []string{"0.5", "0.05", "0.51", "1"},
		want:     cost.Details{Values: []string{"0.05", "0.5", "0.51", "1"}},
		wantCost: "$0.05 – $1", wantPrice: "0.05",
	},
	{
		name:     "several tokens in one item",
		items:    []string{"Adults 20, children 10"},
		want:     cost.Details{Values: []string{"10", "20"}, Symbol: "Adults,children"},
		wantCost: "Adults,children10 – Adults,children20", wantPrice: "10",
	},

	// Symbol detection.
	{
		name:     "same symbol on every item",
		items:    []string{"€5", "€ 8"},
		want:     cost.Details{Values: []string{"5", "8"}, Symbol: "€", Position: cost.Prefix},
		wantCost: "€5 – €8", wantPrice: "5",
	},
	{
		name:     "different symbols",
		items:    []string{"5 €", "8 $"},
		want:     cost.Details{Values: []string{"5", "8"}},
		wantCost: "$5 – $8", wantPrice: "5",
	},
	{
		name:     "one item without symbol",
		items:    []string{"5 €", "8"},
		want:     cost.Details{Values: []string{"5", "8"}},
		wantCost: "$5 – $8", wantPrice: "5",
	},
	{
		name:     "prefix on one item, postfix on another",
		items:    []string{"€5", "8€"},
		want:     cost.Details{Values: []string{"5", "8"}, Symbol: "€"},
		wantCost: "€5 – €8", wantPrice: "5",
	},
	{
		name:     "symbol between numbers",
		items:    []string{"10 € 20"},
		want:     cost.Details{Values: []string{"10", "20"}, Symbol: "€"},
		wantCost: "€10 – €20", wantPrice: "10",
	},
	{
		name:     "separators are not symbols",
		items:    []string{"10/20 — 30–40"},
		want:     cost.Details{Values: []string{"10", "20", "30", "40"}},
		wantCost: "$10 – $40", wantPrice: "10",
	},
	{
		name:     "text items do not affect the symbol",
		items:    []string{"Donation", "5 CHF"},
		want:     cost.Details{Values: []string{"donation", "5"}, Symbol: "CHF", Position: cost.Postfix},
		wantCost: "5CHF", wantPrice: "5",
	},
	{
		// The literal rule of Appendix D: every symbol is part of the remainder.
		name:     "symbol on each number",
		items:    []string{"$10 - $20"},
		want:     cost.Details{Values: []string{"10", "20"}, Symbol: "$$"},
		wantCost: "$$10 – $$20", wantPrice: "10",
	},

	// Text items.
	{
		name:     "text that normalises to nothing",
		items:    []string{"???"},
		want:     cost.Details{Values: []string{}},
		wantCost: "???", wantPrice: "???",
	},
	{
		name:  "non-latin text",
		items: []string{"Бесплатно"},
		want: cost.Details{Values: []string{
			"%d0%b1%d0%b5%d1%81%d0%bf%d0%bb%d0%b0%d1%82%d0%bd%d0%be",
		}},
		wantCost: "Бесплатно", wantPrice: "Бесплатно",
	},
	{
		name:     "currency sign alone is text",
		items:    []string{"€", "12"},
		want:     cost.Details{Values: []string{"%e2%82%ac", "12"}},
		wantCost: "$12", wantPrice: "12",
	},
}

func TestParse(t *testing.T) {
	for _, tc := range costTests {
		t.Run(tc.name, func(t *testing.T) {
			got := cost.Parse(tc.items)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Parse(%q) mismatch (-want +got):\n%s", tc.items, diff)
			}
		})
	}
}

func TestFormat(t *testing.T) {
	for _, tc := range costTests {
		t.Run(tc.name, func(t *testing.T) {
			got := cost.Format(tc.items, cost.Parse(tc.items), defSymbol, defPosition)
			if got != tc.wantCost {
				t.Errorf("Format(%q) = %q, want %q", tc.items, got, tc.wantCost)
			}
		})
	}
}

func TestPrice(t *testing.T) {
	for _, tc := range costTests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := cost.Price(tc.items, cost.Parse(tc.items), defSymbol, defPosition)
			if got != tc.wantPrice || !ok {
				t.Errorf("Price(%q) = %q, %t, want %q, true", tc.items, got, ok, tc.wantPrice)
			}
		})
	}
}

func TestNoItems(t *testing.T) {
	for _, items := range [][]string{nil, {}} {
		d := cost.Parse(items)
		if diff := cmp.Diff(cost.Details{Values: []string{}}, d); diff != "" {
			t.Errorf("Parse(%#v) mismatch (-want +got):\n%s", items, diff)
		}
		if got := cost.Format(items, d, defSymbol, defPosition); got != "" {
			t.Errorf("Format(%#v) = %q, want \"\"", items, got)
		}
		if got, ok := cost.Price(items, d, defSymbol, defPosition); got != "" || ok {
			t.Errorf("Price(%#v) = %q, %t, want \"\", false", items, got, ok)
		}
	}
}

func TestFormat_Defaults(t *testing.T) {
	tests := []struct {
		name        string
		items       []string
		defSymbol   string
		defPosition string
		want        string
	}{
		{"default postfix", []string{"23"}, "€", cost.Postfix, "23€"},
		{"default prefix", []string{"23", "40"}, "£", cost.Prefix, "£23 – £40"},
		{"detected symbol wins", []string{"23 CHF"}, "€", cost.Prefix, "23CHF"},
		{"detected symbol, default position", []string{"5 € 6"}, "$", cost.Postfix, "5€ – 6€"},
		{"empty default symbol", []string{"23"}, "", cost.Prefix, "23"},
		{"unknown default position is prefix", []string{"23"}, "$", "", "$23"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := cost.Format(tc.items, cost.Parse(tc.items), tc.defSymbol, tc.defPosition)
			if got != tc.want {
				t.Errorf("Format(%q, %q, %q) = %q, want %q", tc.items, tc.defSymbol, tc.defPosition, got, tc.want)
			}
		})
	}
}

func FuzzParse(f *testing.F) {
	for _, tc := range costTests {
		f.Add(strings.Join(tc.items, "\x00"))
	}
	f.Fuzz(func(t *testing.T, in string) {
		var items []string
		for item := range strings.SplitSeq(in, "\x00") {
			if item != "" {
				items = append(items, item)
			}
		}
		d := cost.Parse(items)
		if d.Values == nil {
			t.Fatalf("Parse(%q).Values is nil", items)
		}
		checkValues(t, items, d.Values)
		if d.Symbol == "" && d.Position != "" {
			t.Fatalf("Parse(%q) = %+v: a position without a symbol", items, d)
		}
		got := cost.Format(items, d, defSymbol, defPosition)
		if (got == "") != (len(items) == 0) {
			t.Fatalf("Format(%q) = %q", items, got)
		}
		price, ok := cost.Price(items, d, defSymbol, defPosition)
		if ok != (len(items) > 0) || (price == "") != (len(items) == 0) {
			t.Fatalf("Price(%q) = %q, %t", items, price, ok)
		}
	})
}

// numberValue matches the values that come from number tokens.
var numberValue = regexp.MustCompile(`^[0-9]+(\.[0-9]+)?$`)

// checkValues fails t unless values holds no duplicates (numbers compared by
// value, texts as strings) and is sorted by value, a text counting as 0. It
// uses big.Rat as an oracle independent of the package's decimal type.
func checkValues(t *testing.T, items, values []string) {
	t.Helper()
	texts := map[string]bool{}
	var nums []*big.Rat
	prev := new(big.Rat)
	for _, v := range values {
		key := new(big.Rat)
		if numberValue.MatchString(v) {
			if _, ok := key.SetString(v); !ok {
				t.Fatalf("Parse(%q).Values = %q: cannot read %q", items, values, v)
			}
			for _, n := range nums {
				if n.Cmp(key) == 0 {
					t.Fatalf("Parse(%q).Values = %q: %q is a duplicate", items, values, v)
				}
			}
			nums = append(nums, key)
		} else {
			if v == "" || texts[v] {
				t.Fatalf("Parse(%q).Values = %q: text %q is empty or a duplicate", items, values, v)
			}
			texts[v] = true
		}
		if key.Cmp(prev) < 0 {
			t.Fatalf("Parse(%q).Values = %q: not sorted", items, values)
		}
		prev = key
	}
}

func ExampleFormat() {
	items := []string{"0$", "20$", "30$"}
	d := cost.Parse(items)
	fmt.Println(cost.Format(items, d, "$", cost.Prefix))
	fmt.Printf("%q %q %q\n", d.Values, d.Symbol, d.Position)
	// Output:
	// Free – 30$
	// ["0" "20" "30"] "$" "postfix"
}
