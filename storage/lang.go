package storage

import "slices"

// Lang is one of the seven language codes the service is served in.
type Lang string

// Langs lists every supported language in the order the contract names them.
var Langs = []Lang{"nl", "en", "fr", "de", "it", "pl", "es"}

// langsByKey is Langs in byte order: the order of keys that end in a language code after a fixed
// prefix (groupKey).
var langsByKey = func() []Lang {
	l := slices.Clone(Langs)
	slices.Sort(l)
	return l
}()

// ParseLang reports whether s is a supported language code.
func ParseLang(s string) (Lang, bool) {
	for _, l := range Langs {
		if string(l) == s {
			return l, true
		}
	}
	return "", false
}
