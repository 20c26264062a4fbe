package handlers

import (
	"strings"
	"testing"

	"github.com/calendard/calendard/storage"
)

// TestDescriptionsTranslated checks that every parameter description of every route has a translation
// in every language but English, that no translation is left in English, and that the translations
// hold no entry for a description no longer in use.
func TestDescriptionsTranslated(t *testing.T) {
	h, _ := newTestHandler(t, Config{})
	used := map[string]bool{}
	check := func(where string, p Param) {
		if p.Desc == "" {
			return
		}
		used[p.Desc] = true
		for _, lang := range storage.Langs {
			if lang == "en" {
				continue
			}
			tr, ok := descriptions[lang][p.Desc]
			switch {
			case !ok:
				t.Errorf("%s %s: no %s translation of %q", where, p.Name, lang, p.Desc)
			case tr == p.Desc:
				t.Errorf("%s %s: %s translation of %q is the English text", where, p.Name, lang, p.Desc)
			case strings.HasSuffix(p.Desc, ".") != strings.HasSuffix(tr, "."):
				t.Errorf("%s %s: %s translation %q of %q differs in its final period", where, p.Name, lang, tr, p.Desc)
			}
		}
	}
	for _, rt := range h.(*Handler).table {
		for _, ep := range rt.endpoints {
			for _, p := range ep.params {
				check(rt.pattern+" "+strings.Join(ep.methods, ","), p)
			}
		}
	}
	check("/", langParam) // the root index is not in the table
	if len(used) == 0 {
		t.Fatal("no parameter descriptions found")
	}
	for lang, texts := range descriptions {
		if lang == "en" {
			t.Errorf("descriptions has English entries")
		}
		for english := range texts {
			if !used[english] {
				t.Errorf("%s: translation of %q, which no parameter uses", lang, english)
			}
		}
	}
}
