package ical

import (
	"bufio"
	"bytes"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

func TestWriteFolded(t *testing.T) {
	tests := []struct {
		name string
		line string
	}{
		{name: "short", line: "SUMMARY:hello"},
		{name: "exactly 75 octets", line: "SUMMARY:" + strings.Repeat("a", 67)},
		{name: "76 octets", line: "SUMMARY:" + strings.Repeat("a", 68)},
		{name: "long ASCII", line: "DESCRIPTION:" + strings.Repeat("0123456789", 30)},
		// The 75th octet is the first byte of a 2-byte sequence: the fold must come before it.
		{name: "2-byte sequence across the boundary", line: "SUMMARY:" + strings.Repeat("a", 66) + strings.Repeat("é", 40)},
		{name: "3-byte sequences", line: "SUMMARY:" + strings.Repeat("a", 65) + strings.Repeat("€", 60)},
		{name: "3-byte sequence ending at 75", line: "SUMMARY:" + strings.Repeat("a", 64) + "€" + strings.Repeat("b", 10)},
		{name: "4-byte sequences", line: "SUMMARY:" + strings.Repeat("a", 65) + strings.Repeat("🧺", 50)},
		{name: "4-byte sequence at each offset", line: "X:" + strings.Repeat("a🧺b", 80)},
		{name: "mixed widths", line: "LOCATION:" + strings.Repeat("aé€🧺", 50)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			w := bufio.NewWriter(&buf)
			writeFolded(w, []byte(tc.line))
			w.Flush()
			out := buf.String()
			if !strings.HasSuffix(out, "\r\n") {
				t.Fatalf("output %q does not end in CRLF", out)
			}
			physical := strings.Split(strings.TrimSuffix(out, "\r\n"), "\r\n")
			for i, p := range physical {
				if len(p) > maxLineOctets {
					t.Errorf("line %d has %d octets: %q", i, len(p), p)
				}
				if !utf8.ValidString(p) {
					t.Errorf("line %d splits a UTF-8 sequence: %q", i, p)
				}
				if i > 0 && !strings.HasPrefix(p, " ") {
					t.Errorf("continuation line %d does not start with a space: %q", i, p)
				}
				// Folds are as late as possible: the next character would not have fitted.
				if i+1 < len(physical) {
					_, size := utf8.DecodeRuneInString(physical[i+1][1:])
					if len(p)+size <= maxLineOctets {
						t.Errorf("line %d folded early: %d octets and the next character has %d", i, len(p), size)
					}
				}
			}
			if got := strings.ReplaceAll(out, "\r\n ", ""); got != tc.line+"\r\n" {
				t.Errorf("unfolded = %q, want %q", got, tc.line)
			}
		})
	}
}

func TestText(t *testing.T) {
	tests := []struct {
		name    string
		plain   string
		escaped string
	}{
		{name: "plain", plain: "Soirée ouverte", escaped: "Soirée ouverte"},
		{name: "specials", plain: `a,b;c\d`, escaped: `a\,b\;c\\d`},
		{name: "newline", plain: "line 1\nline 2", escaped: `line 1\nline 2`},
		{name: "colon and quote stay", plain: `time: "now"`, escaped: `time: "now"`},
		{name: "tab stays", plain: "a\tb", escaped: "a\tb"},
		{name: "backslash before n", plain: `C:\new`, escaped: `C:\\new`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := string(appendText(nil, tc.plain)); got != tc.escaped {
				t.Errorf("appendText(%q) = %q, want %q", tc.plain, got, tc.escaped)
			}
			if got := parseText(tc.escaped); got != tc.plain {
				t.Errorf("parseText(%q) = %q, want %q", tc.escaped, got, tc.plain)
			}
		})
	}
}

func TestAppendTextCleans(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{name: "CRLF", in: "a\r\nb", want: `a\nb`},
		{name: "lone CR", in: "a\rb", want: `a\nb`},
		{name: "control characters", in: "a\x00b\x1bc\x7f", want: "abc"},
		{name: "invalid UTF-8", in: "a\xffb", want: "a\uFFFDb"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := string(appendText(nil, tc.in)); got != tc.want {
				t.Errorf("appendText(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestParseTextLenient(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{name: "capital N", in: `a\Nb`, want: "a\nb"},
		{name: "unknown escape", in: `a\:b`, want: "a:b"},
		{name: "trailing backslash", in: `ab\`, want: "ab"},
		{name: "control characters", in: "a\x01b", want: "ab"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := parseText(tc.in); got != tc.want {
				t.Errorf("parseText(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestSplitTextList(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{in: "Concerts,Jazz", want: []string{"Concerts", "Jazz"}},
		{in: `Rock\, Pop,Jazz`, want: []string{"Rock, Pop", "Jazz"}},
		{in: `a\\,b`, want: []string{`a\`, "b"}},
		{in: ",a,,b,", want: []string{"a", "b"}},
		{in: "", want: nil},
	}
	for _, tc := range tests {
		if got := splitTextList(tc.in); !cmp.Equal(got, tc.want) {
			t.Errorf("splitTextList(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestParseProperty(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want property
	}{
		{
			name: "no parameters",
			in:   "SUMMARY:Hello: world",
			want: property{name: "SUMMARY", value: "Hello: world"},
		},
		{
			name: "lower-case names",
			in:   "dtstart;tzid=Europe/Paris:20260310T190000",
			want: property{name: "DTSTART", params: []param{{name: "TZID", values: []string{"Europe/Paris"}}}, value: "20260310T190000"},
		},
		{
			name: "quoted value with separators",
			in:   `DTSTART;TZID="(UTC+01:00) Amsterdam, Berlin; Rome":20260310T190000`,
			want: property{name: "DTSTART", params: []param{{name: "TZID", values: []string{"(UTC+01:00) Amsterdam, Berlin; Rome"}}}, value: "20260310T190000"},
		},
		{
			name: "several values and parameters",
			in:   `ATTENDEE;MEMBER="mailto:a@x.org","mailto:b@x.org";CN=Ana:mailto:ana@x.org`,
			want: property{name: "ATTENDEE", params: []param{
				{name: "MEMBER", values: []string{"mailto:a@x.org", "mailto:b@x.org"}},
				{name: "CN", values: []string{"Ana"}},
			}, value: "mailto:ana@x.org"},
		},
		{
			name: "RFC 6868 carets",
			in:   `ORGANIZER;CN="George ^'The Dragon^' ^^ Co^nLtd":mailto:g@x.org`,
			want: property{name: "ORGANIZER", params: []param{{name: "CN", values: []string{"George \"The Dragon\" ^ Co\nLtd"}}}, value: "mailto:g@x.org"},
		},
		{
			name: "empty value",
			in:   "DESCRIPTION:",
			want: property{name: "DESCRIPTION", value: ""},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseProperty(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(property{}, param{})); diff != "" {
				t.Errorf("parseProperty(%q) (-want +got):\n%s", tc.in, diff)
			}
		})
	}
}

func TestParsePropertyErrors(t *testing.T) {
	for _, in := range []string{
		"",
		"SUMMARY",
		":value",
		"SUM MARY:x",
		"DTSTART;TZID:x",
		"DTSTART;=x:y",
		`DTSTART;TZID="Europe/Paris:20260101`,
		`DTSTART;TZID=Euro"pe:20260101`,
		"DTSTART;TZID=Europe/Paris",
		`DTSTART;TZID="a"b:x`,
	} {
		if _, err := parseProperty(in); !errors.Is(err, ErrSyntax) {
			t.Errorf("parseProperty(%q) error = %v, want ErrSyntax", in, err)
		}
	}
}

func TestAppendProperty(t *testing.T) {
	tests := []struct {
		name   string
		params []param
		want   string
	}{
		{name: "plain", params: []param{{name: "TZID", values: []string{"Europe/Paris"}}}, want: "X;TZID=Europe/Paris:v"},
		{name: "quoted for a colon", params: []param{{name: "CN", values: []string{"Dr. No: 007"}}}, want: `X;CN="Dr. No: 007":v`},
		{name: "quoted for a comma", params: []param{{name: "CN", values: []string{"Doe, Jane"}}}, want: `X;CN="Doe, Jane":v`},
		{name: "quoted for a semicolon", params: []param{{name: "CN", values: []string{"a;b"}}}, want: `X;CN="a;b":v`},
		{name: "carets", params: []param{{name: "CN", values: []string{"\"Q\" ^\nx"}}}, want: "X;CN=^'Q^' ^^^nx:v"},
		{name: "several values", params: []param{{name: "M", values: []string{"a", "b:c"}}}, want: `X;M=a,"b:c":v`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := string(appendProperty(nil, "X", tc.params, "v"))
			if got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
			back, err := parseProperty(got)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.params, back.params, cmp.AllowUnexported(param{})); diff != "" {
				t.Errorf("parameters do not read back (-want +got):\n%s", diff)
			}
		})
	}
}
