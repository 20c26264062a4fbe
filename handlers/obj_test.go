package handlers

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestObjEncoding(t *testing.T) {
	o := obj{{"s", "a\"b\\c\n<&>\u2028é"}, {"n", int64(-3)}, {"u", uint64(7)}, {"b", true}, {"z", nil},
		{"f", 2.5}, {"list", []string{"x"}}, {"objs", []obj{{{"k", 1}}}}, {"any", []any{}}}
	got, err := o.MarshalJSON() // json.Marshal would re-escape HTML characters
	if err != nil {
		t.Fatal(err)
	}
	want := `{"s":"a\"b\\c\n<&>\u2028é","n":-3,"u":7,"b":true,"z":null,"f":2.5,"list":["x"],"objs":[{"k":1}],"any":[]}`
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestPickFields(t *testing.T) {
	o := obj{{"id", 1}, {"title", "t"}, {"venue", obj{{"id", 2}, {"city", "Paris"}}}}
	tests := []struct {
		fields []string
		want   string
	}{
		{[]string{"title", "id"}, `{"id":1,"title":"t"}`},
		{[]string{"venue.city"}, `{"venue":{"city":"Paris"}}`},
		{[]string{"venue", "venue.city"}, `{"venue":{"id":2,"city":"Paris"}}`},
		{[]string{"nope"}, `{}`},
		{nil, `{"id":1,"title":"t","venue":{"id":2,"city":"Paris"}}`},
		{[]string{"", ".", "a..b", "id."}, `{"id":1}`}, // empty names name nothing; "id." is id whole
		{[]string{"venue.", "venue.city"}, `{"venue":{"id":2,"city":"Paris"}}`},
	}
	for _, tc := range tests {
		got, _ := o.pick(parseFields(tc.fields)).MarshalJSON()
		if string(got) != tc.want {
			t.Errorf("%v: got %s, want %s", tc.fields, got, tc.want)
		}
	}
}

// FuzzWriteString checks the hand-written string encoder against encoding/json: always valid JSON
// that decodes to the input (invalid UTF-8 becoming U+FFFD, as encoding/json does).
func FuzzWriteString(f *testing.F) {
	for _, s := range []string{"", "plain", `quote " and \ backslash`, "\x00\x1f\x7f", "é\u2028\u2029", "\xff\xfe", "<script>&"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var buf bytes.Buffer
		writeString(&buf, s)
		var got string
		if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
			t.Fatalf("invalid JSON %q: %v", buf.Bytes(), err)
		}
		if want := strings.ToValidUTF8(s, "\uFFFD"); got != want && utf8.ValidString(s) {
			t.Fatalf("round trip: got %q, want %q", got, want)
		}
	})
}
