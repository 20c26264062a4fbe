package input

import (
	"strings"
	"testing"
)

// hostileBodies are request bodies of the largest size the server reads (1 MiB, docs/API.md "Limits")
// shaped to cost the decoders the most; docs/SECURITY.md quotes their costs. An anonymous write is
// decoded before it is refused (docs/API.md "Responses"), so these are what a stranger can make a request cost.
var hostileBodies = map[string]string{
	"form-list-items":   strings.Repeat("a[]=1&", 1<<20/6),
	"form-nested-names": strings.Repeat("a"+strings.Repeat("[a]", 60)+"=1&", 1<<20/186),
	"form-distinct-keys": func() string {
		var sb strings.Builder
		for i := 0; sb.Len() < 1<<20; i++ {
			sb.WriteString("k")
			sb.WriteString(strings.Repeat("x", i%50))
			sb.WriteString("=1&")
		}
		return sb.String()
	}(),
	"json-numbers": "[" + strings.TrimSuffix(strings.Repeat("1,", 1<<19), ",") + "]",
	"json-nested":  strings.Repeat(`{"a":[`, 16) + strings.Repeat(`"x",`, 1<<18) + `"x"` + strings.Repeat("]}", 16),
	"json-escapes": `{"title":"` + strings.Repeat(`\u00e9`, 1<<20/6) + `"}`,
}

func BenchmarkHostileBodies(b *testing.B) {
	for name, body := range hostileBodies {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				if strings.HasPrefix(name, "form") {
					Form(body)
				} else {
					_, _ = JSON([]byte(body))
				}
			}
		})
	}
}
