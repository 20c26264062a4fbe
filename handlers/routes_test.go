package handlers

import (
	"net/url"
	"testing"
)

// TestQueryValue: queryValue reads a parameter as url.Values.Get does, escaped names included, and
// leaves a query that cannot hold it unparsed.
func TestQueryValue(t *testing.T) {
	for _, tc := range []struct{ raw, want string }{
		{raw: "", want: ""},
		{raw: "per_page=10", want: ""},
		{raw: "translation_language=fr", want: "fr"},
		{raw: "per_page=10&translation_language=de&translation_language=fr", want: "de"},
		{raw: "translation%5Flanguage=it", want: "it"},
		{raw: "translation_language=%66r", want: "fr"},
		{raw: "search=%zz&translation_language=pl", want: "pl"},
		{raw: "search=translation_language", want: ""},
		{raw: "translation_language", want: ""},
	} {
		t.Run(tc.raw, func(t *testing.T) {
			got := queryValue(tc.raw, "translation_language")
			if ref := (&url.URL{RawQuery: tc.raw}).Query().Get("translation_language"); got != tc.want || got != ref {
				t.Errorf("queryValue(%q) = %q, want %q (url.Values: %q)", tc.raw, got, tc.want, ref)
			}
		})
	}
	if n := testing.AllocsPerRun(10, func() { queryValue("per_page=10&page=2", "translation_language") }); n != 0 {
		t.Errorf("a query without the name was parsed: %v allocations", n)
	}
}
