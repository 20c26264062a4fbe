package handlers

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"
)

func TestPickJSON(t *testing.T) {
	src := `{"id":7,"title":"A \"quoted\" } title","venue":{"id":3,"city":"Lyon","geo":{"lat":1,"lng":2}},` +
		`"organizer":[{"id":4,"name":"] {"}],"empty":[],"none":null,"cost":"","n":-1.5e3,"t":true,"k\u0065y":"e"}`
	for _, tc := range []struct {
		fields string
		want   string
	}{
		{"id", `{"id":7}`},
		{"title,id", `{"id":7,"title":"A \"quoted\" } title"}`},
		{"venue.city", `{"venue":{"city":"Lyon"}}`},
		{"venue.geo.lat,venue.id", `{"venue":{"id":3,"geo":{"lat":1}}}`},
		{"venue,venue.city", `{"venue":{"id":3,"city":"Lyon","geo":{"lat":1,"lng":2}}}`},
		{"organizer.name", `{"organizer":[{"id":4,"name":"] {"}]}`}, // not an object: kept whole, as obj.pick does
		{"empty.x,none.x,n,t", `{"empty":[],"none":null,"n":-1.5e3,"t":true}`},
		{"key", `{"k\u0065y":"e"}`},
		{"nothing", `{}`},
	} {
		var buf bytes.Buffer
		if err := pickJSON(&buf, []byte(src), parseFields(strings.Split(tc.fields, ","))); err != nil || buf.String() != tc.want {
			t.Errorf("_fields=%s: got %s, %v; want %s", tc.fields, buf.String(), err, tc.want)
		}
	}
	// Malformed before every selected member is written: an error. ("z" is never found, so each is
	// read to its end.)
	for _, bad := range []string{``, `[]`, `{"a":1`, `{"a"`, `{"a":"x}`, `{"a":[1,2}`, `{"a" 1}`, `"a"`, `{"a":}`, `{"a":,"b":1}`} {
		var buf bytes.Buffer
		if err := pickJSON(&buf, []byte(bad), parseFields([]string{"a", "z"})); err == nil {
			t.Errorf("%q: got %s, want an error", bad, buf.String())
		}
	}
	// Once every selected member is written, the rest is not read.
	var buf bytes.Buffer
	if err := pickJSON(&buf, []byte(`{"a":{"b":1,"c":2},"d":2,"e":`), parseFields([]string{"d", "a.b"})); err != nil || buf.String() != `{"a":{"b":1},"d":2}` {
		t.Errorf("stopping after the last selected member: got %s, %v", buf.String(), err)
	}
}

// duplicateKeys reports whether an object of the JSON value src names a member twice.
func duplicateKeys(src []byte) bool {
	type open struct {
		keys  map[string]bool // nil for an array
		atKey bool
	}
	var stack []*open
	d := json.NewDecoder(bytes.NewReader(src))
	for {
		tok, err := d.Token()
		if err != nil {
			return false
		}
		if n := len(stack); n > 0 && stack[n-1].atKey {
			if k, ok := tok.(string); ok {
				if stack[n-1].keys[k] {
					return true
				}
				stack[n-1].keys[k], stack[n-1].atKey = true, false
				continue
			}
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &open{keys: map[string]bool{}, atKey: true})
			continue
		case json.Delim('['):
			stack = append(stack, &open{})
			continue
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
		}
		// A value ended: the object holding it names a member next.
		if n := len(stack); n > 0 && stack[n-1].keys != nil {
			stack[n-1].atKey = true
		}
	}
}

// TestDuplicateKeys: FuzzPickJSON's filter tells an object naming a member twice, at any depth, from
// one name in several objects.
func TestDuplicateKeys(t *testing.T) {
	for src, want := range map[string]bool{
		`{"a":1,"a":2}`:              true,
		`{"a":[{"x":1,"x":2}]}`:      true,
		`{"a":{"b":{}},"c":1,"c":2}`: true,
		`{"a":{"a":1},"b":{"a":2}}`:  false,
		`[{"a":1},{"a":2}]`:          false,
		`{"a":[],"b":{},"c":"a"}`:    false,
	} {
		if got := duplicateKeys([]byte(src)); got != want {
			t.Errorf("duplicateKeys(%s) = %v, want %v", src, got, want)
		}
	}
}

// pickValue is pick's rule over a decoded JSON value, the reference FuzzPickJSON and
// TestListFieldsPickItems compare pickJSON with.
func pickValue(v any, f fields) any {
	m, ok := v.(map[string]any)
	if !ok {
		return v
	}
	out := map[string]any{}
	for k, sub := range f {
		val, ok := m[k]
		if !ok {
			continue
		}
		if _, whole := sub[""]; whole {
			out[k] = val
		} else {
			out[k] = pickValue(val, sub)
		}
	}
	return out
}

func decodeJSON(t testing.TB, b []byte) any {
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	return v
}

func FuzzPickJSON(f *testing.F) {
	f.Add([]byte(`{"id":1,"venue":{"city":"x","id":2},"title":"t"}`), "id,venue.city")
	f.Add([]byte(`{"a":{"b":{"c":[1,{"d":2}]}},"e":"}"}`), "a.b.c,e")
	f.Add([]byte(` { "a" : "\\\"" , "b" : [ ] } `), "a,b.x")
	f.Fuzz(func(t *testing.T, src []byte, names string) {
		f := parseFields(strings.Split(names, ","))
		var buf bytes.Buffer
		err := pickJSON(&buf, src, f)
		var decoded any
		if json.Unmarshal(src, &decoded) != nil {
			return // not JSON: any error will do, and no panic
		}
		if _, isObj := decoded.(map[string]any); !isObj || bytes.Contains(src, []byte(`\u`)) || duplicateKeys(src) {
			return // escaped keys may spell one name two ways, and a name twice is merged by decoding, kept first by pickJSON
		}
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		if got, want := decodeJSON(t, buf.Bytes()), pickValue(decoded, f); !reflect.DeepEqual(got, want) {
			t.Fatalf("%s _fields=%s: got %v, want %v", src, names, got, want)
		}
	})
}

// TestListFieldsPickItems: a list asked with _fields answers each item of the full list cut down to the
// selection, for items rendered for the request and items the cache kept.
func TestListFieldsPickItems(t *testing.T) {
	h, _ := newTestHandler(t, Config{})
	for _, body := range []string{
		`{"title":"Jazz night","start_date":"2026-12-01 20:00","end_date":"2026-12-01 22:00","cost":"10",` +
			`"venue":{"venue":"Hall","city":"Lyon","geo_lat":48.85,"geo_lng":2.35},"organizer":[{"organizer":"Club"}],"categories":"Music","tags":"late"}`,
		`{"title":"Quiet \"morning\"","start_date":"2026-12-02 08:00","end_date":"2026-12-02 09:00","description":"<p>Tea &amp; {brackets}</p>"}`,
	} {
		if w := serve(h, "POST", "/calendar/events/v1/events", "application/json", body); w.Code != http.StatusCreated {
			t.Fatalf("create: %d %s", w.Code, w.Body)
		}
	}
	if _, err := indexOf(h.(*Handler)).SyncOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	items := func(query string) []any {
		w := serve(h, "GET", "/calendar/events/v1/events?start_date=2026-11-01&"+query, "", "")
		if w.Code != http.StatusOK {
			t.Fatalf("%s: %d %s", query, w.Code, w.Body)
		}
		return decodeJSON(t, w.Body.Bytes()).(map[string]any)["events"].([]any)
	}
	selections := []string{"id", "id,title,start_date", "venue.city,venue.geo_lat,organizer.organizer", "venue,cost_details.values", "categories.name,json_ld"}
	// First the selections, whose items are rendered for them, then the full list, then the
	// selections again as new pages whose items the cache kept.
	var got [][]any
	for _, names := range selections {
		got = append(got, items("_fields="+names))
	}
	full := items("x=1")
	if len(full) != 2 {
		t.Fatalf("got %d events, want 2", len(full))
	}
	for _, names := range selections {
		got = append(got, items("_fields="+names+"&y=1"))
	}
	for j, page := range got {
		names := selections[j%len(selections)]
		for i := range full {
			if want := pickValue(full[i], parseFields(strings.Split(names, ","))); !reflect.DeepEqual(page[i], want) {
				t.Errorf("_fields=%s (cached items: %v): item %d is %v, want %v", names, j >= len(selections), i, page[i], want)
			}
		}
	}
}
