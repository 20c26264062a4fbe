package input

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
)

// The expected values below were checked against PHP 8.2's parse_str and
// $_POST, with max_input_nesting_level = MaxDepth.
func TestForm(t *testing.T) {
	deep := func(n int) string { return "a" + strings.Repeat("[x]", n) }
	deepWant := func(n int) any {
		var v any = "1"
		for range n {
			v = map[string]any{"x": v}
		}
		return v
	}
	tests := []struct {
		name string
		raw  string
		want map[string]any
	}{
		{name: "empty", raw: "", want: map[string]any{}},
		{name: "plain", raw: "a=1&b=two", want: map[string]any{"a": "1", "b": "two"}},

		// docs/API.md "Parameters and bodies".
		{name: "bracket list", raw: "a[]=1&a[]=2", want: map[string]any{"a": []any{"1", "2"}}},
		{name: "indexed list", raw: "a[0]=x&a[1]=y", want: map[string]any{"a": []any{"x", "y"}}},
		{name: "single index", raw: "a[0]=x", want: map[string]any{"a": []any{"x"}}},
		{name: "object", raw: "a[k]=x", want: map[string]any{"a": map[string]any{"k": "x"}}},
		{name: "nested list", raw: "a[b][]=1&a[b][]=2", want: map[string]any{"a": map[string]any{"b": []any{"1", "2"}}}},
		{name: "repeated plain key keeps the last", raw: "a=1&a=2", want: map[string]any{"a": "2"}},

		// Separators, decoding and values.
		{name: "empty pairs skipped", raw: "&&a=1&&", want: map[string]any{"a": "1"}},
		{name: "no equals sign", raw: "a&b=", want: map[string]any{"a": "", "b": ""}},
		{name: "second equals sign is in the value", raw: "a=b=c", want: map[string]any{"a": "b=c"}},
		{name: "semicolon is not a separator", raw: "a=1;b=2", want: map[string]any{"a": "1;b=2"}},
		{name: "plus is space", raw: "a=x+y&b+c=1", want: map[string]any{"a": "x y", "b_c": "1"}},
		{name: "percent escapes", raw: "a=%41%c3%a9%2B%26%3D", want: map[string]any{"a": "A\u00e9+&="}},
		{name: "invalid escapes kept literally", raw: "a=%zz%4&b=%&c=%%41", want: map[string]any{"a": "%zz%4", "b": "%", "c": "%A"}},
		{name: "bytes kept as sent", raw: "a=%ff%00", want: map[string]any{"a": "\xff\x00"}},

		// Top-level name mangling.
		{name: "dot becomes underscore", raw: "a.b=1", want: map[string]any{"a_b": "1"}},
		{name: "space becomes underscore", raw: "a%20b=1", want: map[string]any{"a_b": "1"}},
		{name: "mangling stops at the first bracket", raw: "a.b[c.d]=1", want: map[string]any{"a_b": map[string]any{"c.d": "1"}}},
		{name: "leading spaces dropped", raw: "++a=1", want: map[string]any{"a": "1"}},
		{name: "leading tab kept", raw: "%09a=1", want: map[string]any{"\ta": "1"}},
		{name: "name cut at NUL", raw: "a%00b=1", want: map[string]any{"a": "1"}},
		{name: "empty name", raw: "=1", want: map[string]any{}},
		{name: "only spaces", raw: "++=1", want: map[string]any{}},
		{name: "NUL first", raw: "%00a=1", want: map[string]any{}},

		// PHP bracket edge cases.
		{name: "a[", raw: "a[=1", want: map[string]any{"a_": "1"}},
		{name: "a]", raw: "a]=1", want: map[string]any{"a]": "1"}},
		{name: "a[b", raw: "a[b=1", want: map[string]any{"a_b": "1"}},
		{name: "a[b.c d[e unterminated mangles the rest", raw: "a[b.c+d[e=1", want: map[string]any{"a_b_c_d_e": "1"}},
		{name: "[a] has an empty name", raw: "[a]=1", want: map[string]any{}},
		{name: "a[][]", raw: "a[][]=1", want: map[string]any{"a": []any{[]any{"1"}}}},
		{name: "a[][] twice", raw: "a[][]=1&a[][]=2", want: map[string]any{"a": []any{[]any{"1"}, []any{"2"}}}},
		{name: "a[]=1&a=2", raw: "a[]=1&a=2", want: map[string]any{"a": "2"}},
		{name: "a=1&a[]=2", raw: "a=1&a[]=2", want: map[string]any{"a": []any{"2"}}},
		{name: "a[b]=1&a[b][c]=2", raw: "a[b]=1&a[b][c]=2", want: map[string]any{"a": map[string]any{"b": map[string]any{"c": "2"}}}},
		{name: "a[b][c] unterminated deeper", raw: "a[b][c=1", want: map[string]any{"a": map[string]any{"b": "1"}}},
		{name: "a[][b unterminated after append", raw: "a[][b=1", want: map[string]any{"a": []any{"1"}}},
		{name: "text after bracket ignored", raw: "a[b]c=1", want: map[string]any{"a": map[string]any{"b": "1"}}},
		{name: "text between brackets ends the name", raw: "a[b]c[d]=1", want: map[string]any{"a": map[string]any{"b": "1"}}},
		{name: "a[b]]", raw: "a[b]]=1", want: map[string]any{"a": map[string]any{"b": "1"}}},
		{name: "a[[b]", raw: "a[[b]=1", want: map[string]any{"a": map[string]any{"[b": "1"}}},
		{name: "a[ ] appends", raw: "a[+]=1&a[+]=2", want: map[string]any{"a": []any{"1", "2"}}},
		{name: "a[ x] keeps the blank", raw: "a[+x]=1", want: map[string]any{"a": map[string]any{" x": "1"}}},
		{name: "a[  ] two blanks are a key", raw: "a[++]=1", want: map[string]any{"a": map[string]any{"  ": "1"}}},
		{name: "inner dots and spaces kept", raw: "a[b.c+d]=1", want: map[string]any{"a": map[string]any{"b.c d": "1"}}},
		{name: "empty key inside object", raw: "a[k]=1&a[]=2", want: map[string]any{"a": map[string]any{"k": "1", "0": "2"}}},
		{name: "percent-encoded brackets", raw: "a%5B%5D=1&a%5b%5d=2", want: map[string]any{"a": []any{"1", "2"}}},
		{name: "percent-encoded key", raw: "a%5Bk%5D=1", want: map[string]any{"a": map[string]any{"k": "1"}}},
		{name: "numeric top-level name", raw: "0=a&1[]=b", want: map[string]any{"0": "a", "1": []any{"b"}}},

		// Integer keys and the list/object decision.
		{name: "mixed numeric and string keys", raw: "a[0]=x&a[k]=y", want: map[string]any{"a": map[string]any{"0": "x", "k": "y"}}},
		{name: "string key then append", raw: "a[k]=x&a[]=y", want: map[string]any{"a": map[string]any{"k": "x", "0": "y"}}},
		{name: "append then string key", raw: "a[]=x&a[k]=y", want: map[string]any{"a": map[string]any{"0": "x", "k": "y"}}},
		{name: "insertion order, not key order", raw: "a[1]=y&a[0]=x", want: map[string]any{"a": []any{"y", "x"}}},
		{name: "gaps close up", raw: "a[0]=x&a[5]=y", want: map[string]any{"a": []any{"x", "y"}}},
		{name: "append after the largest key", raw: "a[5]=x&a[]=y&a[6]=z", want: map[string]any{"a": []any{"x", "z"}}},
		{name: "overwrite keeps position", raw: "a[0]=x&a[1]=y&a[0]=z", want: map[string]any{"a": []any{"z", "y"}}},
		{name: "leading zero is a string key", raw: "a[01]=x", want: map[string]any{"a": map[string]any{"01": "x"}}},
		{name: "plus sign is a string key", raw: "a[%2B1]=x", want: map[string]any{"a": map[string]any{"+1": "x"}}},
		{name: "negative key gives an object", raw: "a[-1]=x", want: map[string]any{"a": map[string]any{"-1": "x"}}},
		{name: "minus zero is a string key", raw: "a[-0]=x&a[]=y", want: map[string]any{"a": map[string]any{"-0": "x", "0": "y"}}},
		{name: "append after a negative key", raw: "a[-3]=x&a[]=y", want: map[string]any{"a": map[string]any{"-3": "x", "-2": "y"}}},
		{name: "largest int64 key", raw: "a[9223372036854775807]=x", want: map[string]any{"a": []any{"x"}}},
		{name: "append fails past int64", raw: "a[9223372036854775807]=x&a[]=y&a[][z]=w", want: map[string]any{"a": []any{"x"}}},
		{name: "key past int64 is a string", raw: "a[9223372036854775808]=x", want: map[string]any{"a": map[string]any{"9223372036854775808": "x"}}},

		// Depth: at most MaxDepth bracket pairs.
		{name: "MaxDepth brackets kept", raw: deep(MaxDepth) + "=1", want: map[string]any{"a": deepWant(MaxDepth)}},
		{name: "deeper than MaxDepth dropped", raw: deep(MaxDepth+1) + "=1&b=2", want: map[string]any{"b": "2"}},
		{
			name: "too deep drops the whole top-level name, as PHP",
			raw:  "a[y]=1&" + deep(MaxDepth+1) + "=2&c=3",
			want: map[string]any{"c": "3"},
		},
		{name: "name set again after a drop", raw: deep(MaxDepth+1) + "=1&a[y]=2", want: map[string]any{"a": map[string]any{"y": "2"}}},
		{name: "very deep", raw: "a" + strings.Repeat("[]", 100000) + "=1", want: map[string]any{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Form(tc.raw)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Form(%.60q)\n got %#v\nwant %#v", tc.raw, got, tc.want)
			}
		})
	}
}

func TestMultipart(t *testing.T) {
	part := func(disposition, body string) string {
		return "--B\r\nContent-Disposition: " + disposition + "\r\n\r\n" + body + "\r\n"
	}
	const end = "--B--\r\n"
	tests := []struct {
		name     string
		body     string
		maxBytes int64
		want     map[string]any
		wantErr  error // nil, ErrMultipart or errTooLarge
	}{
		{name: "empty body", body: "", want: map[string]any{}},
		{name: "no parts", body: end, want: map[string]any{}},
		{
			name: "fields",
			body: part(`form-data; name="title"`, "Concert") + part(`form-data; name="all_day"`, "1") + end,
			want: map[string]any{"title": "Concert", "all_day": "1"},
		},
		{
			name: "bracket names as Form",
			body: part(`form-data; name="a[]"`, "1") + part(`form-data; name="a[]"`, "2") + part(`form-data; name="b[k]"`, "x") + part(`form-data; name="c.d"`, "y") + end,
			want: map[string]any{"a": []any{"1", "2"}, "b": map[string]any{"k": "x"}, "c_d": "y"},
		},
		{
			name: "repeated name keeps the last",
			body: part(`form-data; name="a"`, "1") + part(`form-data; name="a"`, "2") + end,
			want: map[string]any{"a": "2"},
		},
		{
			name: "unquoted name with brackets",
			body: part(`form-data; name=a[]`, "1") + end,
			want: map[string]any{"a": []any{"1"}},
		},
		{
			name: "quoting",
			body: part(`form-data; name="a\"b"`, "1") + part(`form-data; name='q'`, "2") + part(`form-data;name="r"`, "3") + part(`form-data; NAME="up"`, "4") + end,
			want: map[string]any{`a"b`: "1", "q": "2", "r": "3", "up": "4"},
		},
		{
			name: "file parts skipped",
			body: part(`form-data; name="f"; filename="a.txt"`, "data") + part(`form-data; name="g"; filename=""`, "") + part(`form-data; name="h"`, "kept") + end,
			want: map[string]any{"h": "kept"},
		},
		{
			name: "parts without a name skipped",
			body: part(`form-data`, "x") + part(`form-data; name = "spaced"`, "y") + "--B\r\nContent-Type: text/plain\r\n\r\nz\r\n" + end,
			want: map[string]any{},
		},
		{
			name: "values kept as sent",
			body: part(`form-data; name="m"`, "line1\r\nline2=3D") + part(`form-data; name="e"`, "") + end,
			want: map[string]any{"m": "line1\r\nline2=3D", "e": ""},
		},
		{
			name: "quoted-printable not decoded",
			body: "--B\r\nContent-Disposition: form-data; name=\"q\"\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\na=3Db\r\n" + end,
			want: map[string]any{"q": "a=3Db"},
		},
		{
			name: "preamble and epilogue ignored",
			body: "preamble\r\n" + part(`form-data; name="p"`, "1") + end + "epilogue",
			want: map[string]any{"p": "1"},
		},
		{name: "exactly at the limit", body: part(`form-data; name="a"`, "1") + end, maxBytes: int64(len(part(`form-data; name="a"`, "1") + end)), want: map[string]any{"a": "1"}},
		{name: "one byte over the limit", body: part(`form-data; name="a"`, "1") + end, maxBytes: int64(len(part(`form-data; name="a"`, "1")+end)) - 1, wantErr: errTooLarge},
		{name: "zero limit, empty body", body: "", maxBytes: -1, want: map[string]any{}},
		{name: "zero limit", body: end, maxBytes: -1, wantErr: errTooLarge},
		{name: "no closing boundary", body: part(`form-data; name="a"`, "1"), wantErr: ErrMultipart},
		{name: "wrong boundary", body: "--C\r\n\r\nx\r\n--C--\r\n", wantErr: ErrMultipart},
		{name: "not multipart", body: "a=1&b=2", wantErr: ErrMultipart},
		{name: "bad part header", body: "--B\r\nno colon here\r\n\r\nx\r\n" + end, wantErr: ErrMultipart},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			maxBytes := tc.maxBytes
			if maxBytes == 0 {
				maxBytes = 1 << 20
			}
			got, err := Multipart(strings.NewReader(tc.body), "B", maxBytes)
			switch {
			case tc.wantErr == errTooLarge:
				if _, ok := errors.AsType[*http.MaxBytesError](err); !ok {
					t.Fatalf("Multipart() = %v, %v; want *http.MaxBytesError", got, err)
				}
				return
			case tc.wantErr != nil:
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("Multipart() = %v, %v; want %v", got, err, tc.wantErr)
				}
				return
			case err != nil:
				t.Fatalf("Multipart() error: %v", err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Multipart()\n got %#v\nwant %#v", got, tc.want)
			}
		})
	}
}

// errTooLarge marks test cases that expect *http.MaxBytesError.
var errTooLarge = errors.New("too large")

func TestMultipartErrors(t *testing.T) {
	t.Run("no boundary", func(t *testing.T) {
		if _, err := Multipart(strings.NewReader(""), "", 100); !errors.Is(err, ErrMultipart) {
			t.Errorf("error = %v, want ErrMultipart", err)
		}
	})
	t.Run("read error", func(t *testing.T) {
		boom := errors.New("boom")
		_, err := Multipart(iotest.ErrReader(boom), "B", 100)
		if !errors.Is(err, ErrMultipart) {
			t.Errorf("error = %v, want ErrMultipart", err)
		}
	})
	t.Run("limit hit while streaming a large part", func(t *testing.T) {
		body := io.MultiReader(
			strings.NewReader("--B\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\n"),
			iotest.OneByteReader(strings.NewReader(strings.Repeat("x", 5000))),
		)
		_, err := Multipart(body, "B", 1000)
		var tooLarge *http.MaxBytesError
		if !errors.As(err, &tooLarge) || tooLarge.Limit != 1000 {
			t.Errorf("error = %v, want *http.MaxBytesError with Limit 1000", err)
		}
	})
}

func TestPartName(t *testing.T) {
	tests := []struct {
		disposition string
		want        string
		wantOK      bool
	}{
		{`form-data; name="a"`, "a", true},
		{`form-data; name=a`, "a", true},
		{`form-data; name=a b`, "a", true},
		{`form-data; name="a;b"`, "a;b", true},
		{`form-data; name="a\\b"`, `a\b`, true},
		{`form-data; name='it\'s'`, "it's", true},
		{`form-data; name=""`, "", true},
		{`form-data; name="a"; name="b"`, "b", true},
		{`form-data; name="a"; filename="f"`, "", false},
		{`form-data; name="a"; FileName=""`, "", false},
		{`form-data; name="a"; filename*=UTF-8''f`, "", false},
		{`form-data`, "", false},
		{``, "", false},
	}
	for _, tc := range tests {
		t.Run(tc.disposition, func(t *testing.T) {
			got, ok := partName(tc.disposition)
			if got != tc.want || ok != tc.wantOK {
				t.Errorf("partName(%q) = %q, %v; want %q, %v", tc.disposition, got, ok, tc.want, tc.wantOK)
			}
		})
	}
}

// checkValue fails unless v is in the package's value model for form data:
// strings, lists and objects only, nested at most depth levels.
func checkValue(t *testing.T, v any, depth int) {
	t.Helper()
	if depth < 0 {
		t.Fatalf("value nested too deep: %#v", v)
	}
	switch v := v.(type) {
	case string:
	case []any:
		for _, x := range v {
			checkValue(t, x, depth-1)
		}
	case map[string]any:
		for _, x := range v {
			checkValue(t, x, depth-1)
		}
	default:
		t.Fatalf("value of type %T outside the model", v)
	}
}

func FuzzForm(f *testing.F) {
	for _, seed := range []string{
		"",
		"title=Concert&start_date=2026-07-18+19%3A30%3A00&end_date=2026-07-18+23%3A00%3A00",
		"categories[]=12&categories[]=17&tags=jazz%2Cbuiten&featured=1",
		"venue[venue]=Paradiso&venue[city]=Amsterdam&organizer[0]=4&organizer[1]=7",
		"per_page=10&page=2&start_date=today&search=caf%C3%A9&_fields=id,title",
		"a[b][][c]=1&a[b][][c]=2&a.b=3&a+c=4",
		"a[=1&a]=2&a[b=3&[a]=4&a[][]=5&a[]=6&a=7&%5B%5D=8&=9",
		"a[9223372036854775807]=x&a[]=y&a[-1]=z&a[01]=w",
		"a%zz=%4&%00=1&a[%00]=2",
		"a" + strings.Repeat("[]", MaxDepth+1) + "=1",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		got := Form(raw)
		for k, v := range got {
			if k == "" {
				t.Fatal("empty top-level name")
			}
			if strings.ContainsAny(k, ". \x00") || strings.HasPrefix(k, " ") {
				t.Fatalf("unmangled top-level name %q", k)
			}
			checkValue(t, v, MaxDepth)
		}
		// A query string built from the result decodes to the same
		// result, at least for plain scalar parameters.
		var b strings.Builder
		want := map[string]any{}
		for k, v := range got {
			if s, ok := v.(string); ok && !strings.ContainsAny(k, "[") {
				fmt.Fprintf(&b, "&%s=%s", formEscape(k), formEscape(s))
				want[k] = s
			}
		}
		if again := Form(b.String()); !reflect.DeepEqual(again, want) {
			t.Fatalf("round trip of %q\n got %#v\nwant %#v", b.String(), again, want)
		}
	})
}

// formEscape percent-encodes every byte but letters and digits.
func formEscape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || ('0' <= c && c <= '9') {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

func BenchmarkForm(b *testing.B) {
	raw := "title=Jazz+in+het+Park&start_date=2026-07-18+19%3A30%3A00&end_date=2026-07-18+23%3A00%3A00" +
		"&categories[]=12&categories[]=17&tags=jazz%2Cbuiten%2Czomer&venue[venue]=Vondelpark&venue[city]=Amsterdam" +
		"&organizer[0]=4&organizer[1]=7&featured=1&all_day=0&cost=12.50&website=https%3A%2F%2Fexample.org%2F"
	b.ReportAllocs()
	for b.Loop() {
		Form(raw)
	}
}
