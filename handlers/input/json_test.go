package input

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// nest wraps inner in depth-1 arrays inside a top-level object, so the
// result has the given depth.
func nest(depth int, inner string) string {
	return `{"a":` + strings.Repeat("[", depth-1) + inner + strings.Repeat("]", depth-1) + "}"
}

func TestJSON(t *testing.T) {
	tests := []struct {
		name     string
		body     string
		want     map[string]any
		wantCode int // 0: no error
	}{
		// docs/API.md "Parameters and bodies": an empty body means "no parameters".
		{name: "empty", body: "", want: map[string]any{}},
		{name: "whitespace only", body: " \t\r\n ", want: map[string]any{}},
		{name: "empty object", body: "{}", want: map[string]any{}},
		{
			name: "every value type",
			body: `{"s":"x","n":-1.5e3,"t":true,"f":false,"z":null,"a":[1,"2",[]],"o":{"k":{}}}`,
			want: map[string]any{
				"s": "x", "n": json.Number("-1.5e3"), "t": true, "f": false, "z": nil,
				"a": []any{json.Number("1"), "2", []any{}},
				"o": map[string]any{"k": map[string]any{}},
			},
		},
		{
			name: "numbers keep their text",
			body: `{"big":12345678901234567890,"frac":0.10000000000000000001,"neg0":-0,"exp":1E+2}`,
			want: map[string]any{
				"big":  json.Number("12345678901234567890"),
				"frac": json.Number("0.10000000000000000001"),
				"neg0": json.Number("-0"),
				"exp":  json.Number("1E+2"),
			},
		},
		{name: "surrounding whitespace", body: "\n {\"a\" : 1 } \n", want: map[string]any{"a": json.Number("1")}},
		{name: "duplicate keys: last wins", body: `{"a":1,"a":2}`, want: map[string]any{"a": json.Number("2")}},
		{name: "empty key", body: `{"":1}`, want: map[string]any{"": json.Number("1")}},
		{
			name: "escapes",
			body: `{"e":"\"\\\/\b\f\n\r\t\u00e9\u20ac\ud83d\ude00\u0000"}`,
			want: map[string]any{"e": "\"\\/\b\f\n\r\t\u00e9\u20ac\U0001F600\x00"},
		},
		{name: "raw UTF-8", body: "{\"caf\u00e9\":\"\u0141\u00f3d\u017a \U0001F600\"}", want: map[string]any{"caf\u00e9": "\u0141\u00f3d\u017a \U0001F600"}},
		{name: "literal U+FFFD is not an error", body: "{\"a\":\"\uFFFD\"}", want: map[string]any{"a": "\uFFFD"}},
		{name: "depth 32 is allowed", body: nest(32, "1"), want: map[string]any{"a": nestedList(31, json.Number("1"))}},

		// docs/API.md "Parameters and bodies": a non-object top level is rejected.
		{name: "top-level array", body: "[1,2]", wantCode: JSONErrorSyntax},
		{name: "top-level string", body: `"text"`, wantCode: JSONErrorSyntax},
		{name: "top-level number", body: "42", wantCode: JSONErrorSyntax},
		{name: "top-level null", body: "null", wantCode: JSONErrorSyntax},
		{name: "top-level true", body: "true", wantCode: JSONErrorSyntax},

		// docs/API.md "Parameters and bodies", "Limits": nesting deeper than 32.
		{name: "depth 33 array", body: nest(33, "1"), wantCode: JSONErrorDepth},
		{name: "depth 33 empty array", body: nest(33, ""), wantCode: JSONErrorDepth},
		{name: "depth 33 objects", body: strings.Repeat(`{"a":`, 33) + "1" + strings.Repeat("}", 33), wantCode: JSONErrorDepth},
		{name: "very deep top-level array", body: strings.Repeat("[", 1<<20), wantCode: JSONErrorDepth},
		{name: "very deep inside object", body: `{"a":` + strings.Repeat("[", 1<<20), wantCode: JSONErrorDepth},

		// Malformed JSON, with PHP's json_last_error codes.
		{name: "unterminated object", body: `{"a":1`, wantCode: JSONErrorSyntax},
		{name: "trailing comma", body: `{"a":1,}`, wantCode: JSONErrorSyntax},
		{name: "missing colon", body: `{"a" 1}`, wantCode: JSONErrorSyntax},
		{name: "unquoted key", body: `{a:1}`, wantCode: JSONErrorSyntax},
		{name: "single quotes", body: `{'a':1}`, wantCode: JSONErrorSyntax},
		{name: "trailing garbage", body: `{"a":1}x`, wantCode: JSONErrorSyntax},
		{name: "two objects", body: `{}{}`, wantCode: JSONErrorSyntax},
		{name: "leading zero", body: `{"a":01}`, wantCode: JSONErrorSyntax},
		{name: "bare fraction point", body: `{"a":1.}`, wantCode: JSONErrorSyntax},
		{name: "leading point", body: `{"a":.5}`, wantCode: JSONErrorSyntax},
		{name: "plus sign", body: `{"a":+1}`, wantCode: JSONErrorSyntax},
		{name: "lone minus", body: `{"a":-}`, wantCode: JSONErrorSyntax},
		{name: "empty exponent", body: `{"a":1e}`, wantCode: JSONErrorSyntax},
		{name: "NaN", body: `{"a":NaN}`, wantCode: JSONErrorSyntax},
		{name: "truncated literal", body: `{"a":tru}`, wantCode: JSONErrorSyntax},
		{name: "capitalised literal", body: `{"a":True}`, wantCode: JSONErrorSyntax},
		{name: "bad escape", body: `{"a":"\x"}`, wantCode: JSONErrorSyntax},
		{name: "short unicode escape", body: `{"a":"\u12"}`, wantCode: JSONErrorSyntax},
		{name: "backslash at end", body: `{"a":"\`, wantCode: JSONErrorSyntax},
		{name: "byte order mark", body: "\uFEFF{}", wantCode: JSONErrorSyntax},
		{name: "comment", body: `{"a":1 /* c */}`, wantCode: JSONErrorSyntax},
		{name: "value where key expected after comma", body: `{"a":1,]`, wantCode: JSONErrorSyntax},
		{name: "array closes object", body: `{"a":1]`, wantCode: JSONErrorStateMismatch},
		{name: "array closes empty object", body: `{]`, wantCode: JSONErrorStateMismatch},
		{name: "object closes array", body: `{"a":[1}}`, wantCode: JSONErrorStateMismatch},
		{name: "object closes empty array", body: `{"a":[}}`, wantCode: JSONErrorStateMismatch},
		{name: "control character in string", body: "{\"a\":\"x\ty\"}", wantCode: JSONErrorCtrlChar},
		{name: "control character outside string", body: "{\"a\":1\x01}", wantCode: JSONErrorCtrlChar},
		{name: "NUL byte", body: "{\"a\":1}\x00", wantCode: JSONErrorCtrlChar},
		// PHP reports an unterminated string as a control character error.
		{name: "unterminated string", body: `{"a":"b`, wantCode: JSONErrorCtrlChar},
		{name: "unterminated string after a value", body: `{"a":1"`, wantCode: JSONErrorCtrlChar},
		{name: "invalid UTF-8 in string", body: "{\"a\":\"\xff\"}", wantCode: JSONErrorUTF8},
		{name: "invalid UTF-8 in key", body: "{\"\xc3\":1}", wantCode: JSONErrorUTF8},
		{name: "invalid UTF-8 outside string", body: "{\"a\":1\xff}", wantCode: JSONErrorUTF8},
		{name: "encoded surrogate", body: "{\"a\":\"\xed\xa0\x80\"}", wantCode: JSONErrorUTF8},
		{name: "overlong encoding", body: "{\"a\":\"\xc0\xaf\"}", wantCode: JSONErrorUTF8},
		{name: "invalid UTF-8 in a string after a value", body: "{\"a\":1\"\xff\"}", wantCode: JSONErrorUTF8},
		{name: "valid UTF-8 outside string", body: "{\"a\":1\u00e9}", wantCode: JSONErrorSyntax},
		{name: "lone high surrogate", body: `{"a":"\ud800"}`, wantCode: JSONErrorUTF16},
		{name: "lone low surrogate", body: `{"a":"\udc00"}`, wantCode: JSONErrorUTF16},
		{name: "high surrogate then letter", body: `{"a":"\ud800\u0041"}`, wantCode: JSONErrorUTF16},
		{name: "high surrogate then bad escape", body: `{"a":"\ud800\uZZZZ"}`, wantCode: JSONErrorUTF16},
		{name: "two high surrogates", body: `{"a":"\ud800\ud800"}`, wantCode: JSONErrorUTF16},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := JSON([]byte(tc.body))
			if tc.wantCode != 0 {
				var jerr *JSONError
				if !errors.As(err, &jerr) {
					t.Fatalf("JSON(%.60q) = %v, %v; want *JSONError code %d", tc.body, got, err, tc.wantCode)
				}
				if jerr.Code != tc.wantCode {
					t.Errorf("JSON(%.60q) code = %d (%s), want %d", tc.body, jerr.Code, jerr.Message, tc.wantCode)
				}
				if jerr.Message == "" {
					t.Errorf("JSON(%.60q): empty message", tc.body)
				}
				return
			}
			if err != nil {
				t.Fatalf("JSON(%.60q) error: %v", tc.body, err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("JSON(%.60q)\n got %#v\nwant %#v", tc.body, got, tc.want)
			}
		})
	}
}

func nestedList(depth int, inner any) any {
	for range depth {
		inner = []any{inner}
	}
	return inner
}

func TestJSONErrorMessages(t *testing.T) {
	tests := []struct {
		body string
		want string
	}{
		// PHP's json_last_error_msg texts, which the reference sends.
		{body: nest(33, "1"), want: "Maximum stack depth exceeded"},
		{body: `{"a":1]`, want: "State mismatch (invalid or malformed JSON)"},
		{body: `{"a":"b`, want: "Control character error, possibly incorrectly encoded"},
		{body: `{"a":}`, want: "Syntax error"},
		{body: "{\"a\":\"\xff\"}", want: "Malformed UTF-8 characters, possibly incorrectly encoded"},
		{body: `{"a":"\udc00"}`, want: "Single unpaired UTF-16 surrogate in unicode escape"},
		{body: `[1,2]`, want: "Syntax error: the body must be a JSON object"},
	}
	for _, tc := range tests {
		t.Run(tc.want, func(t *testing.T) {
			_, err := JSON([]byte(tc.body))
			var jerr *JSONError
			if !errors.As(err, &jerr) {
				t.Fatalf("JSON(%.40q) error = %v, want *JSONError", tc.body, err)
			}
			if got := jerr.Message; got != tc.want {
				t.Errorf("Message = %q, want %q", got, tc.want)
			}
			if got := jerr.Error(); !strings.Contains(got, tc.want) {
				t.Errorf("Error() = %q, want it to contain %q", got, tc.want)
			}
		})
	}
}

// TestJSONMatchesEncodingJSON checks the decoder against encoding/json on the
// benchmark body, which mixes every value type.
func TestJSONMatchesEncodingJSON(t *testing.T) {
	body := readEventBody(t)
	got, err := JSON(body)
	if err != nil {
		t.Fatal(err)
	}
	want, ok := stdDecode(body)
	if !ok {
		t.Fatal("encoding/json rejects testdata/event.json")
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("JSON(event.json)\n got %#v\nwant %#v", got, want)
	}
}

func readEventBody(tb testing.TB) []byte {
	tb.Helper()
	body, err := os.ReadFile(filepath.Join("testdata", "event.json"))
	if err != nil {
		tb.Fatal(err)
	}
	return body
}

func stdDecode(body []byte) (map[string]any, bool) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil || m == nil {
		return nil, false
	}
	return m, true
}

// jsonDepth is the nesting depth of a valid JSON document, counting arrays
// and objects, by encoding/json's tokenizer.
func jsonDepth(body []byte) int {
	dec := json.NewDecoder(bytes.NewReader(body))
	depth, deepest := 0, 0
	for {
		tok, err := dec.Token()
		if err != nil {
			return deepest
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			depth++
			deepest = max(deepest, depth)
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
	}
}

func FuzzJSON(f *testing.F) {
	f.Add(readEventBody(f))
	for _, seed := range []string{
		``,
		` `,
		`{}`,
		`{"title":"Concert","start_date":"2026-07-18 19:30:00","end_date":"2026-07-18 23:00:00"}`,
		`{"venue":"Paradiso","city":"Amsterdam","geo_lat":52.3622,"geo_lng":4.8838,"show_map":"yes"}`,
		`{"organizer":"Stichting","email":"a@example.org","phone":null}`,
		`{"name":"Jazz","parent":0,"description":"Live \u00e9 \ud83c\udfb7"}`,
		"{\"categories\":[1,2,\"3\"],\"tags\":\"a,b\",\"cost\":[\"12,50 \u20ac\",15]}",
		`{"status":"draft","all_day":true,"featured":1,"sticky":"false"}`,
		`{"a":{"b":{"c":[[[]]]}}}`,
		`[1,2]`,
		`"text"`,
		`42`,
		`null`,
		`{"a":1,}`,
		`{"a":"\ud800"}`,
		"{\"a\":\"\xff\"}",
		`{"a":1]`,
		nest(32, "1"),
		nest(33, "1"),
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		got, err := JSON(body)
		if err != nil {
			var jerr *JSONError
			if !errors.As(err, &jerr) {
				t.Fatalf("error %T %v, want *JSONError", err, err)
			}
			switch jerr.Code {
			case JSONErrorDepth:
				if json.Valid(body) && jsonDepth(body) <= MaxDepth {
					t.Fatalf("depth error for a document of depth %d", jsonDepth(body))
				}
			case JSONErrorUTF16:
				if !bytes.Contains(body, []byte(`\u`)) {
					t.Fatal("surrogate error without a \\u escape")
				}
			case JSONErrorStateMismatch, JSONErrorCtrlChar, JSONErrorSyntax, JSONErrorUTF8:
				// A valid object of acceptable depth in valid UTF-8 is
				// rejected only for a lone surrogate (JSONErrorUTF16).
				if m, ok := stdDecode(body); ok && json.Valid(body) && utf8.Valid(body) && jsonDepth(body) <= MaxDepth {
					t.Fatalf("code %d (%s) for a valid object %v", jerr.Code, jerr.Message, m)
				}
			default:
				t.Fatalf("unexpected code %d", jerr.Code)
			}
			return
		}
		if len(bytes.Trim(body, " \t\r\n")) == 0 {
			if len(got) != 0 {
				t.Fatalf("blank body gave %v", got)
			}
			return
		}
		if !json.Valid(body) {
			t.Fatal("accepted a body encoding/json rejects")
		}
		want, ok := stdDecode(body)
		if !ok {
			t.Fatal("accepted a body that is not an object")
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("decoded\n %#v\nencoding/json\n %#v", got, want)
		}
		if d := jsonDepth(body); d > MaxDepth {
			t.Fatalf("accepted depth %d", d)
		}
		// The decoded value encodes to a body that decodes to it again.
		re, err := json.Marshal(got)
		if err != nil {
			t.Fatalf("encoding %#v: %v", got, err)
		}
		if again, err := JSON(re); err != nil || !reflect.DeepEqual(again, got) {
			t.Fatalf("%s decodes to %#v (%v), want %#v", re, again, err, got)
		}
	})
}

func BenchmarkJSON(b *testing.B) {
	body := readEventBody(b)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := JSON(body); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkJSONEncodingJSON is the baseline the hand-written decoder is
// measured against: the same body through encoding/json with UseNumber.
func BenchmarkJSONEncodingJSON(b *testing.B) {
	body := readEventBody(b)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := stdDecode(body); !ok {
			b.Fatal("decode failed")
		}
	}
}
