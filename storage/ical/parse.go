package ical

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strings"
)

// component is a parsed BEGIN/END block.
type component struct {
	name     string
	line     int // line of BEGIN
	props    []property
	children []*component
	// fault is the first problem found while reading the component; it makes the component
	// unusable (its event skipped, its zone unknown).
	fault *lineError
}

// lineError is an error at a line of the input.
type lineError struct {
	line int
	err  error
}

func (e *lineError) Error() string { return fmt.Sprintf("line %d: %v", e.line, e.err) }

func (e *lineError) Unwrap() error { return e.err }

func (c *component) setFault(line int, err error) {
	if c.fault == nil {
		c.fault = &lineError{line: line, err: err}
	}
}

// first returns the component's first property called name, or nil.
func (c *component) first(name string) *property {
	for i := range c.props {
		if c.props[i].name == name {
			return &c.props[i]
		}
	}
	return nil
}

// parseComponents reads the input into its tree of components, rooted at the VCALENDAR, counting in
// warn the lines it decodes from Windows-1252 (parseLine).
// Components other than VCALENDAR, VEVENT, VTIMEZONE and the latter's observances are read past
// without being kept.
func parseComponents(r io.Reader, limits Limits, warn *warnings) (*component, error) {
	lx := newLexer(r, limits)
	var (
		root  *component
		stack []*component
		// kept says, for each component on the stack, whether it is kept in the tree.
		kept   []bool
		events int
	)
	fatal := func(line int, format string, args ...any) (*component, error) {
		return nil, fmt.Errorf("%w: line %d: %s", ErrSyntax, line, fmt.Sprintf(format, args...))
	}
	for {
		text, line, tooLong, err := lx.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if len(stack) == 0 && root != nil {
			return fatal(line, "content after END:VCALENDAR")
		}
		var top *component
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if tooLong {
			if top == nil {
				return nil, fmt.Errorf("%w: line %d longer than %d bytes", ErrLimit, line, limits.MaxLineBytes)
			}
			top.setFault(line, fmt.Errorf("%w: line longer than %d bytes", ErrLimit, limits.MaxLineBytes))
			continue
		}
		p, err := parseLine(text, warn)
		if err != nil {
			if top == nil {
				return fatal(line, "%v", err)
			}
			top.setFault(line, err)
			continue
		}
		p.line = line
		switch p.name {
		case "BEGIN":
			name := strings.ToUpper(p.value)
			if tokenEnd(name) != len(name) || name == "" {
				if top == nil {
					return fatal(line, "malformed BEGIN")
				}
				top.setFault(line, fmt.Errorf("%w: malformed BEGIN", ErrSyntax))
				continue
			}
			c := &component{name: name, line: line}
			if top == nil {
				if name != "VCALENDAR" {
					return fatal(line, "BEGIN:%.20s where BEGIN:VCALENDAR belongs", name)
				}
				root = c
				stack, kept = append(stack, c), append(kept, true)
				continue
			}
			if name == "VEVENT" && top.name == "VEVENT" {
				// The previous event lacks its END; close it so that only it is lost.
				top.setFault(top.line, fmt.Errorf("%w: BEGIN:VEVENT without END", ErrSyntax))
				stack, kept = stack[:len(stack)-1], kept[:len(kept)-1]
				top = stack[len(stack)-1]
			}
			if len(stack) >= maxDepth {
				return nil, fmt.Errorf("%w: line %d: components nested deeper than %d", ErrLimit, line, maxDepth)
			}
			keep := kept[len(kept)-1] && keeps(top.name, name)
			switch {
			case top == root && name == "VEVENT":
				if events++; events > limits.MaxEvents {
					return nil, fmt.Errorf("%w: more than %d events", ErrLimit, limits.MaxEvents)
				}
			case name == "VCALENDAR":
				return fatal(line, "VCALENDAR inside a component")
			case keep && size(top, events) >= limits.MaxProperties:
				top.setFault(line, fmt.Errorf("%w: more than %d properties and components", ErrLimit, limits.MaxProperties))
				keep = false
			}
			if keep {
				top.children = append(top.children, c)
			}
			stack, kept = append(stack, c), append(kept, keep)
		case "END":
			name := strings.ToUpper(p.value)
			i := len(stack) - 1
			for i >= 0 && stack[i].name != name {
				i--
			}
			if i < 0 {
				if top == nil {
					return fatal(line, "END:%.20s before BEGIN:VCALENDAR", name)
				}
				top.setFault(line, fmt.Errorf("%w: END:%.20s without BEGIN", ErrSyntax, name))
				continue
			}
			// Components left open inside the one being closed are cut short.
			for _, open := range stack[i+1:] {
				open.setFault(open.line, fmt.Errorf("%w: BEGIN:%s without END", ErrSyntax, open.name))
				stack[i].setFault(open.line, fmt.Errorf("%w: BEGIN:%s without END", ErrSyntax, open.name))
			}
			stack, kept = stack[:i], kept[:i]
		default:
			if top == nil {
				return fatal(line, "%s before BEGIN:VCALENDAR", p.name)
			}
			if !kept[len(kept)-1] {
				continue
			}
			if size(top, events) >= limits.MaxProperties {
				top.setFault(line, fmt.Errorf("%w: more than %d properties and components", ErrLimit, limits.MaxProperties))
				continue
			}
			top.props = append(top.props, p)
		}
	}
	if root == nil {
		return nil, fmt.Errorf("%w: no VCALENDAR", ErrSyntax)
	}
	if len(stack) > 0 {
		return nil, fmt.Errorf("%w: no END:VCALENDAR: the input is cut short", ErrSyntax)
	}
	return root, nil
}

// size returns what counts toward MaxProperties in c: its properties and kept components, less
// the events of the VCALENDAR, which MaxEvents bounds instead.
func size(c *component, events int) int {
	if c.name == "VCALENDAR" {
		return len(c.props) + len(c.children) - events
	}
	return len(c.props) + len(c.children)
}

// keeps reports whether a component called child is kept inside one called parent.
func keeps(parent, child string) bool {
	switch parent {
	case "VCALENDAR":
		return child == "VEVENT" || child == "VTIMEZONE"
	case "VTIMEZONE":
		return child == "STANDARD" || child == "DAYLIGHT"
	}
	return false
}

// lexer reads unfolded content lines (RFC 5545 section 3.1).
type lexer struct {
	r      *bufio.Reader
	limits Limits
	read   int64 // bytes read
	line   int   // physical lines read
	buf    []byte
}

func newLexer(r io.Reader, limits Limits) *lexer {
	// One byte past the limit tells input that exceeds it from input that fills it.
	lx := &lexer{r: bufio.NewReaderSize(io.LimitReader(r, limits.MaxBytes+1), 64<<10), limits: limits}
	// Windows tools may start a UTF-8 file with a byte order mark.
	if bom, _ := lx.r.Peek(3); string(bom) == "\xef\xbb\xbf" {
		lx.r.Discard(3)
		lx.read = 3
	}
	return lx
}

// next returns the next non-empty unfolded content line and the number of its first physical
// line. A line longer than MaxLineBytes is read to its end and returned empty with tooLong set.
// Lines may end in CRLF or in a bare LF.
func (lx *lexer) next() (text []byte, line int, tooLong bool, err error) {
	for {
		lx.buf = lx.buf[:0]
		tooLong = false
		line = lx.line + 1
		for {
			more, err := lx.physical(&lx.buf, &tooLong)
			if err != nil {
				return nil, 0, false, err
			}
			if !more {
				break
			}
			// A line that starts with a space or a tab continues the previous one.
			b, err := lx.r.Peek(1)
			if err != nil || (b[0] != ' ' && b[0] != '\t') {
				break
			}
			lx.r.Discard(1)
			if lx.read++; lx.read > lx.limits.MaxBytes {
				return nil, 0, false, lx.tooLarge()
			}
		}
		if tooLong {
			return nil, line, true, nil
		}
		if len(lx.buf) > 0 {
			return lx.buf, line, false, nil
		}
		if line > lx.line {
			return nil, 0, false, io.EOF
		}
	}
}

// physical appends one physical line without its line break to *buf, or only counts it once *buf
// has reached MaxLineBytes. It reports false at the end of the input.
func (lx *lexer) physical(buf *[]byte, tooLong *bool) (bool, error) {
	read := false
	start := len(*buf)
	for {
		chunk, err := lx.r.ReadSlice('\n')
		lx.read += int64(len(chunk))
		if lx.read > lx.limits.MaxBytes {
			return false, lx.tooLarge()
		}
		if len(chunk) > 0 && !read {
			read = true
			lx.line++
		}
		chunk = bytes.TrimSuffix(chunk, []byte("\n"))
		if err != bufio.ErrBufferFull {
			chunk = bytes.TrimSuffix(chunk, []byte("\r"))
		}
		if !*tooLong {
			if len(*buf)+len(chunk) > lx.limits.MaxLineBytes {
				*tooLong = true
				*buf = (*buf)[:0]
			} else {
				*buf = append(*buf, chunk...)
			}
		}
		switch err {
		case bufio.ErrBufferFull:
			continue
		case nil, io.EOF:
			// The CR of CRLF, which a full buffer may have separated from its LF.
			if n := len(*buf); !*tooLong && n > start && (*buf)[n-1] == '\r' {
				*buf = (*buf)[:n-1]
			}
			return read, nil
		default:
			return false, err
		}
	}
}

func (lx *lexer) tooLarge() error {
	return fmt.Errorf("%w: input longer than %d bytes", ErrLimit, lx.limits.MaxBytes)
}
