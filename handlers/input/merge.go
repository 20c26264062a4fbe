package input

// Merge layers parameter sources into one map: for each name the first source
// holding a non-nil value wins. Callers pass path, JSON body, form body and
// query string, in that order (docs/API.md "Parameters and bodies").
//
// A nil value (JSON null) counts as absent (docs/API.md "Parameters and bodies"): it is dropped, and
// it does not hide the same name in a later source. That is WordPress's
// get_param, which skips a source whose value fails isset(). The merge is
// shallow: "a[x]=1" in the query string does not fill in a body's "a".
// Values are shared with the sources, not copied.
func Merge(sources ...map[string]any) map[string]any {
	n := 0
	for _, src := range sources {
		n = max(n, len(src))
	}
	out := make(map[string]any, n)
	for _, src := range sources {
		for k, v := range src {
			if v == nil {
				continue
			}
			if _, ok := out[k]; !ok {
				out[k] = v
			}
		}
	}
	return out
}
