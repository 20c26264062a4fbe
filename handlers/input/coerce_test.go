package input

import (
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
)

type num = json.Number

// nonScalars are rejected by every coercion but List (which takes []any).
var nonScalars = []struct {
	name string
	v    any
}{
	{"nil", nil},
	{"object", map[string]any{"a": "1"}},
	{"empty object", map[string]any{}},
	{"Go int", 1},
	{"Go float64", 1.0},
}

func wantTypeError(t *testing.T, err error, want string) {
	t.Helper()
	var te *TypeError
	if !errors.As(err, &te) {
		t.Fatalf("error = %v, want *TypeError", err)
	}
	if te.Want != want {
		t.Errorf("TypeError.Want = %q, want %q", te.Want, want)
	}
}

func TestInt(t *testing.T) {
	tests := []struct {
		name string
		v    any
		want int64
		ok   bool
	}{
		{"JSON integer", num("42"), 42, true},
		{"JSON negative", num("-7"), -7, true},
		{"JSON zero fraction", num("1.0"), 1, true},
		{"JSON exponent", num("1e2"), 100, true},
		{"JSON exponent with fraction", num("1.5e1"), 15, true},
		{"JSON negative exponent, whole", num("250e-1"), 25, true},
		{"JSON many zeros", num("100.000000000000000000000000"), 100, true},
		{"JSON beyond float64 precision", num("9007199254740993.0"), 9007199254740993, true},
		{"JSON fraction a float64 would lose", num("1.0000000000000000001"), 0, false},
		{"JSON zero with huge exponent", num("0e999999999999999999999"), 0, true},
		{"JSON minus zero", num("-0.0"), 0, true},
		{"JSON max int64", num("9223372036854775807"), math.MaxInt64, true},
		{"JSON min int64", num("-9223372036854775808"), math.MinInt64, true},
		{"JSON min int64 as exponent", num("-9.223372036854775808e18"), math.MinInt64, true},
		{"JSON fraction", num("1.5"), 0, false},
		{"JSON tiny fraction", num("1.0000000000000000000001"), 0, false},
		{"JSON negative exponent", num("1e-2"), 0, false},
		{"JSON overflow", num("9223372036854775808"), 0, false},
		{"JSON overflow by exponent", num("1e19"), 0, false},
		{"JSON huge exponent", num("1e999999999999999999999"), 0, false},
		{"JSON tiny exponent", num("1e-999999999999999999999"), 0, false},
		{"invalid json.Number", num("12abc"), 0, false},
		{"empty json.Number", num(""), 0, false},
		{"string", "42", 42, true},
		{"string with blanks", " \t-42\n", -42, true},
		{"string with plus", "+5", 5, true},
		{"string with leading zeros", "007", 7, true},
		{"string minus zero", "-0", 0, true},
		{"string max int64", "9223372036854775807", math.MaxInt64, true},
		{"string min int64", "-9223372036854775808", math.MinInt64, true},
		{"empty string", "", 0, false},
		{"blank string", "  ", 0, false},
		{"sign only", "-", 0, false},
		{"double sign", "+-1", 0, false},
		{"inner blank", "1 2", 0, false},
		{"blank after sign", "- 1", 0, false},
		{"string fraction", "1.0", 0, false},
		{"string exponent", "1e2", 0, false},
		{"string hex", "0x1A", 0, false},
		{"string underscore", "1_000", 0, false},
		{"string overflow", "9223372036854775808", 0, false},
		{"unicode digits", "\u0661", 0, false},
		{"bool", true, 0, false},
		{"list", []any{num("1")}, 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Int(tc.v)
			if !tc.ok {
				wantTypeError(t, err, "integer")
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("Int(%#v) = %d, %v; want %d", tc.v, got, err, tc.want)
			}
		})
	}
	for _, tc := range nonScalars {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Int(tc.v)
			wantTypeError(t, err, "integer")
		})
	}
}

func TestNumber(t *testing.T) {
	tests := []struct {
		name string
		v    any
		want float64
		ok   bool
	}{
		{"JSON integer", num("3"), 3, true},
		{"JSON decimal", num("52.37"), 52.37, true},
		{"JSON exponent", num("-4.9e1"), -49, true},
		{"JSON big integer", num("12345678901234567890"), 12345678901234567890, true},
		{"JSON underflow", num("1e-400"), 0, true},
		{"JSON overflow", num("1e400"), 0, false},
		{"invalid json.Number", num("Infinity"), 0, false},
		{"json.Number with blanks", num(" 1"), 0, false},
		{"string", "52.37", 52.37, true},
		{"string exponent", "-4.9e1", -49, true},
		{"string with blanks", " -4.9e1 ", -49, true},
		{"string with plus", "+1.5", 1.5, true},
		{"string integer", "4", 4, true},
		{"string trailing point", "5.", 5, true},
		{"string leading point", ".5", 0.5, true},
		{"string capital exponent", "1E+2", 100, true},
		{"string leading zeros", "007.5", 7.5, true},
		{"empty string", "", 0, false},
		{"blank string", " ", 0, false},
		{"lone point", ".", 0, false},
		{"point exponent", ".e1", 0, false},
		{"empty exponent", "1e", 0, false},
		{"signed exponent only", "1e+", 0, false},
		{"NaN", "NaN", 0, false},
		{"Inf", "Inf", 0, false},
		{"infinity", "-infinity", 0, false},
		{"hex", "0x1p3", 0, false},
		{"underscore", "1_000", 0, false},
		{"decimal comma", "52,37", 0, false},
		{"string overflow", "1e400", 0, false},
		{"two points", "1.2.3", 0, false},
		{"bool", false, 0, false},
		{"list", []any{}, 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Number(tc.v)
			if !tc.ok {
				wantTypeError(t, err, "number")
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("Number(%#v) = %v, %v; want %v", tc.v, got, err, tc.want)
			}
		})
	}
	for _, tc := range nonScalars {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Number(tc.v)
			wantTypeError(t, err, "number")
		})
	}
}

func TestBool(t *testing.T) {
	tests := []struct {
		name string
		v    any
		want bool
		ok   bool
	}{
		{"JSON true", true, true, true},
		{"JSON false", false, false, true},
		{"JSON 1", num("1"), true, true},
		{"JSON 0", num("0"), false, true},
		{"JSON -0", num("-0"), false, true},
		{"JSON 1.0", num("1.0"), false, false},
		{"JSON 2", num("2"), false, false},
		{"JSON -1", num("-1"), false, false},
		{"JSON 1e0", num("1e0"), false, false},
		{"true", "true", true, true},
		{"TRUE", "TRUE", true, true},
		{"True", "True", true, true},
		{"false", "false", false, true},
		{"FaLsE", "FaLsE", false, true},
		{"1", "1", true, true},
		{"0", "0", false, true},
		{"yes", "yes", true, true},
		{"YES", "YES", true, true},
		{"no", "no", false, true},
		{"No", "No", false, true},
		{"empty string", "", false, false},
		{"blank around", " true", false, false},
		{"trailing newline", "true\n", false, false},
		{"on is truthy only", "on", false, false},
		{"y is truthy only", "y", false, false},
		{"01", "01", false, false},
		{"string 1.0", "1.0", false, false},
		{"long s", "fal\u017fe", false, false},
		{"list", []any{true}, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Bool(tc.v)
			if !tc.ok {
				wantTypeError(t, err, "boolean")
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("Bool(%#v) = %v, %v; want %v", tc.v, got, err, tc.want)
			}
		})
	}
	for _, tc := range nonScalars {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Bool(tc.v)
			wantTypeError(t, err, "boolean")
		})
	}
}

func TestString(t *testing.T) {
	tests := []struct {
		name string
		v    any
		want string
		ok   bool
	}{
		{"string", "Concert", "Concert", true},
		{"empty string", "", "", true},
		{"blanks kept", " a ", " a ", true},
		{"integer", num("42"), "42", true},
		{"negative", num("-42"), "-42", true},
		{"trailing zero", num("1.50"), "1.5", true},
		{"zero fraction", num("1.0"), "1", true},
		{"exponent", num("1e2"), "100", true},
		{"capital exponent", num("1.5E+3"), "1500", true},
		{"negative exponent", num("15e-1"), "1.5", true},
		{"big integer stays exact", num("12345678901234567890"), "12345678901234567890", true},
		{"long fraction stays exact", num("0.10000000000000000001"), "0.10000000000000000001", true},
		{"zero", num("0"), "0", true},
		{"minus zero", num("-0"), "0", true},
		{"minus zero fraction", num("-0.000"), "0", true},
		{"small", num("0.000001"), "0.000001", true},
		{"smaller uses exponent", num("0.0000001"), "1e-7", true},
		{"smaller with digits", num("0.00000012"), "1.2e-7", true},
		{"21 digits", num("1e20"), "100000000000000000000", true},
		{"22 digits uses exponent", num("1e21"), "1e+21", true},
		{"large with digits", num("-1.25e30"), "-1.25e+30", true},
		{"huge exponent", num("1.5e99999999999999999999"), "1.5e+99999999999999999999", true},
		{"huge exponent adjusted", num("150e99999999999999999999"), "1.5e+100000000000000000001", true},
		{"huge negative exponent", num("1e-99999999999999999999"), "1e-99999999999999999999", true},
		{"huge negative exponent adjusted", num("0.0015e-99999999999999999999"), "1.5e-100000000000000000002", true},
		{"huge exponent with carry", num("10e99999999999999999999"), "1e+100000000000000000000", true},
		{"huge exponent with borrow", num("0.1e100000000000000000000"), "1e+99999999999999999999", true},
		{"invalid json.Number", num("1."), "", false},
		{"bool", true, "", false},
		{"list", []any{"a"}, "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := String(tc.v)
			if !tc.ok {
				wantTypeError(t, err, "string")
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("String(%#v) = %q, %v; want %q", tc.v, got, err, tc.want)
			}
		})
	}
	for _, tc := range nonScalars {
		t.Run(tc.name, func(t *testing.T) {
			_, err := String(tc.v)
			wantTypeError(t, err, "string")
		})
	}
}

// TestStringRoundTrip checks that String keeps a number's value: the text it
// gives parses back to the same float64.
func TestStringRoundTrip(t *testing.T) {
	for _, s := range []string{"0.1", "-2.5e-8", "123456.789", "6.02214076e23", "1e-6", "9.999999e20", "5e-324"} {
		t.Run(s, func(t *testing.T) {
			got, err := String(num(s))
			if err != nil {
				t.Fatal(err)
			}
			want, _ := Number(num(s))
			if back, err := Number(got); err != nil || back != want {
				t.Errorf("Number(String(%s)) = %v, %v; want %v (String gave %q)", s, back, err, want, got)
			}
		})
	}
}

func TestTruthy(t *testing.T) {
	tests := []struct {
		name string
		v    any
		want bool
		ok   bool
	}{
		{"true", true, true, true},
		{"false", false, false, true},
		{"number 1", num("1"), true, true},
		{"number 2", num("2"), true, true},
		{"negative number", num("-1"), true, true},
		{"fraction", num("0.5"), true, true},
		{"tiny", num("1e-400"), true, true},
		{"number 0", num("0"), false, true},
		{"number 0.0", num("0.0"), false, true},
		{"number -0", num("-0e5"), false, true},
		{"invalid json.Number", num("yes"), false, false},
		{"string 1", "1", true, true},
		{"enable", "enable", true, true},
		{"enabled", "Enabled", true, true},
		{"on", "ON", true, true},
		{"y", "Y", true, true},
		{"yes", "yes", true, true},
		{"true", "TRUE", true, true},
		{"string 0", "0", false, true},
		{"string 2", "2", false, true},
		{"string false", "false", false, true},
		{"no", "no", false, true},
		{"off", "off", false, true},
		{"empty string", "", false, true},
		{"blank around yes", " yes", false, true},
		{"anything else", "maybe", false, true},
		{"list", []any{"1"}, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Truthy(tc.v)
			if !tc.ok {
				wantTypeError(t, err, "boolean")
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("Truthy(%#v) = %v, %v; want %v", tc.v, got, err, tc.want)
			}
		})
	}
	for _, tc := range nonScalars {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Truthy(tc.v)
			wantTypeError(t, err, "boolean")
		})
	}
}

func TestList(t *testing.T) {
	tests := []struct {
		name string
		v    any
		want []any
		ok   bool
	}{
		{"JSON array", []any{num("1"), "b"}, []any{num("1"), "b"}, true},
		{"empty array", []any{}, []any{}, true},
		{"PHP bracket array", Form("a[]=1&a[]=2")["a"], []any{"1", "2"}, true},
		{"CSV", "a,b,c", []any{"a", "b", "c"}, true},
		{"CSV trimmed, empties dropped", " a , ,b,,\tc ,", []any{"a", "b", "c"}, true},
		{"single item", "12", []any{"12"}, true},
		{"inner blank kept", "a b", []any{"a b"}, true},
		{"empty string", "", []any{}, true},
		{"only commas", " , ,", []any{}, true},
		{"number", num("7"), []any{num("7")}, true},
		{"bool", true, []any{true}, true},
		{"PHP object", Form("a[k]=1")["a"], nil, false},
		{"object", map[string]any{}, nil, false},
		{"nil", nil, nil, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := List(tc.v)
			if !tc.ok {
				wantTypeError(t, err, "array")
				return
			}
			if err != nil || !reflect.DeepEqual(got, tc.want) {
				t.Errorf("List(%#v) = %#v, %v; want %#v", tc.v, got, err, tc.want)
			}
		})
	}
}

func TestTypeError(t *testing.T) {
	for _, want := range []string{"integer", "number", "boolean", "string", "array"} {
		t.Run(want, func(t *testing.T) {
			got := (&TypeError{Want: want}).Error()
			if got != "must be of type "+want {
				t.Errorf("Error() = %q", got)
			}
		})
	}
}

// TestEmptyString pins docs/API.md "Parameters and bodies": "" is never an integer, number or
// boolean, whatever the caller's default.
func TestEmptyString(t *testing.T) {
	coercions := []struct {
		name string
		fn   func(any) error
	}{
		{"Int", func(v any) error { _, err := Int(v); return err }},
		{"Number", func(v any) error { _, err := Number(v); return err }},
		{"Bool", func(v any) error { _, err := Bool(v); return err }},
	}
	for _, c := range coercions {
		for _, s := range []string{"", " ", strings.Repeat(" ", 3) + "\t"} {
			t.Run(c.name+"/"+strings.ReplaceAll(s, " ", "_"), func(t *testing.T) {
				if err := c.fn(s); err == nil {
					t.Errorf("%s(%q) succeeded", c.name, s)
				}
			})
		}
	}
}

func TestAddDecimal(t *testing.T) {
	tests := []struct {
		m     string
		delta int64
		want  string
	}{
		{"100", 1, "101"},
		{"199", 1, "200"},
		{"999", 5, "1004"},
		{"100", -1, "99"},
		{"1000", -999, "1"},
		{"12345678901234567890", 0, "12345678901234567890"},
		{"99999999999999999999", 12345, "100000000000000012344"},
		{"100000000000000000000", -12345, "99999999999999987655"},
	}
	for _, tc := range tests {
		t.Run(tc.m, func(t *testing.T) {
			if got := addDecimal(tc.m, tc.delta); got != tc.want {
				t.Errorf("addDecimal(%s, %d) = %s, want %s", tc.m, tc.delta, got, tc.want)
			}
		})
	}
}
