package richtext

import "strings"

// asciiSpace is the white space Render trims and treats as blank. It is ASCII
// only, like wpautop's \s: a line holding a no-break space is content.
const asciiSpace = " \t\n\v\f\r"

// blockTags are the elements that Render leaves unwrapped when a block starts
// with one of them (C.3).
var blockTags = map[string]bool{
	"address": true, "article": true, "aside": true, "blockquote": true,
	"details": true, "div": true, "dl": true, "dd": true, "dt": true,
	"fieldset": true, "figcaption": true, "figure": true, "footer": true,
	"form": true, "h1": true, "h2": true, "h3": true, "h4": true, "h5": true,
	"h6": true, "header": true, "hr": true, "li": true, "main": true,
	"nav": true, "ol": true, "p": true, "pre": true, "section": true,
	"table": true, "ul": true,
}

// Render is the C.3 paragraph rendering of a record's description or excerpt
// on output, an approximation of WordPress wpautop.
//
// Line endings become LF and the text is trimmed; empty text renders as "".
// Blocks are separated by one or more blank (white-space-only) lines, and
// each block is trimmed. A block starting with a block-level tag such as
// "<p>", "<ul>" or "<h2 class=x>" is kept as is; any other block becomes
// "<p>" + block + "</p>" with each newline inside it written as "<br />\n".
// Blocks are joined with a single newline.
//
// Render does not sanitise: it expects text stored through Filter or sent by a
// caller with unfiltered_html. Its output contains no blank line and starts
// with a block-level tag, so Render(Render(s)) == Render(s).
func Render(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	s = strings.Trim(s, asciiSpace)
	if s == "" {
		return ""
	}
	var out strings.Builder
	var block []string
	emit := func() {
		if len(block) == 0 {
			return
		}
		b := strings.Trim(strings.Join(block, "\n"), asciiSpace)
		block = block[:0]
		if out.Len() > 0 {
			out.WriteByte('\n')
		}
		if startsWithBlockTag(b) {
			out.WriteString(b)
			return
		}
		out.WriteString("<p>" + strings.ReplaceAll(b, "\n", "<br />\n") + "</p>")
	}
	for line := range strings.SplitSeq(s, "\n") {
		if strings.Trim(line, asciiSpace) == "" {
			emit()
			continue
		}
		block = append(block, line)
	}
	emit()
	return out.String()
}

// startsWithBlockTag reports whether b starts with "<" and the name of a
// block-level element (any case), followed by ">", white space or "/".
func startsWithBlockTag(b string) bool {
	if !strings.HasPrefix(b, "<") {
		return false
	}
	end := 1
	for end < len(b) && isASCIIAlnum(b[end]) {
		end++
	}
	if end == len(b) || !blockTags[asciiLower(b[1:end])] {
		return false
	}
	return b[end] == '>' || b[end] == '/' || strings.IndexByte(asciiSpace, b[end]) >= 0
}

func isASCIIAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}
