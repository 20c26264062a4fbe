package tec

import "testing"

// TestOurs: on a site of several roots, a probed event is the root's whose language its translations
// map names with the event's own ID; an event without the map is the probing root's.
func TestOurs(t *testing.T) {
	r := &run{root: Root{URL: "https://site.example/fr/wp-json", Lang: "fr"}}
	for _, tc := range []struct {
		name, body string
		want       bool
	}{
		{"no translations", `{"id":7}`, true},
		{"this root's language", `{"id":7,"translations":{"en":6,"fr":7}}`, true},
		{"another root's language", `{"id":6,"translations":{"en":6,"fr":7}}`, false},
		{"not translated into this root's", `{"id":6,"translations":{"en":6}}`, false},
	} {
		if got := r.ours([]byte(tc.body)); got != tc.want {
			t.Errorf("%s: ours %v, want %v", tc.name, got, tc.want)
		}
	}
}
