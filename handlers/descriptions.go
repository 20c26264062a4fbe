package handlers

import "github.com/calendard/calendard/storage"

// descriptions translates the parameter descriptions of the parameter tables, keyed by their English
// text (Param.Desc). SEED: the language sites differ only in these texts. A text with no translation
// in a language is served in English.
var descriptions = descriptionTexts

// describeIn returns a parameter description in lang, or in English when it has no translation.
func describeIn(lang storage.Lang, english string) string {
	if t, ok := descriptions[lang][english]; ok {
		return t
	}
	return english
}
