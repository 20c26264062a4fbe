package main

import (
	"sync/atomic"
	"time"
	"unicode/utf8"

	"go.uber.org/zap"
	"go.uber.org/zap/buffer"
	"go.uber.org/zap/zapcore"
)

// logEncoderConfig is how the service's lines read: zap's production keys, ISO-8601 timestamps,
// durations in seconds, callers as package/file:line.
func logEncoderConfig() zapcore.EncoderConfig {
	enc := zap.NewProductionEncoderConfig()
	enc.EncodeTime = zapcore.ISO8601TimeEncoder
	return enc
}

// lineEncoder is zap's JSON encoder for logEncoderConfig, with a shorter path for the entries the
// service writes most, every request's line: an entry whose fields are strings, integers, booleans
// and durations, without a stack, on the logger's own encoder (no fields added with With), is
// appended here, byte for byte what zap's encoder writes (TestLineEncoderWritesAsZap). zap's encoder
// copies its whole configuration for each entry and writes each value through an interface, about
// half a request line's cost. Every other entry is zap's encoder's.
type lineEncoder struct {
	zapcore.Encoder
	// derived is set on clones, which zap makes to add a logger's fields (With): those fields are
	// in the embedded encoder, so its entries go through it.
	derived bool
	// caller is the last caller written and its text, as zap's short caller encoder trims it: most
	// lines come from one place (the request line), and trimming allocates.
	caller atomic.Pointer[callerText]
	// second is the last second a line was written in, as text: lines of one second share it.
	second atomic.Pointer[secondText]
}

// secondText is a second's ISO-8601 time in a zone (zapcore.ISO8601TimeEncoder's layout), as the
// text before its milliseconds and the zone's after them: formatting a time was a fifth of a line.
type secondText struct {
	unix       int64
	loc        *time.Location
	head, zone string
}

type callerText struct {
	caller zapcore.EntryCaller
	text   string
}

func newLineEncoder() *lineEncoder {
	return &lineEncoder{Encoder: zapcore.NewJSONEncoder(logEncoderConfig())}
}

func (e *lineEncoder) Clone() zapcore.Encoder {
	return &lineEncoder{Encoder: e.Encoder.Clone(), derived: true}
}

// linePool is where the lines' buffers come from and return to: zap's core frees the buffer EncodeEntry
// returns once written.
var linePool = buffer.NewPool()

func (e *lineEncoder) EncodeEntry(ent zapcore.Entry, fields []zapcore.Field) (*buffer.Buffer, error) {
	if e.derived || ent.Stack != "" {
		return e.Encoder.EncodeEntry(ent, fields)
	}
	b := linePool.Get()
	b.AppendString(`{"level":`)
	appendQuoted(b, ent.Level.String())
	if !ent.Time.IsZero() {
		b.AppendString(`,"ts":"`)
		e.appendTime(b, ent.Time)
		b.AppendByte('"')
	}
	if ent.LoggerName != "" {
		b.AppendString(`,"logger":`)
		appendQuoted(b, ent.LoggerName)
	}
	if ent.Caller.Defined {
		b.AppendString(`,"caller":`)
		appendQuoted(b, e.callerText(ent.Caller))
	}
	b.AppendString(`,"msg":`)
	appendQuoted(b, ent.Message)
	for _, f := range fields {
		b.AppendByte(',')
		appendQuoted(b, f.Key)
		b.AppendByte(':')
		switch f.Type {
		case zapcore.StringType:
			appendQuoted(b, f.String)
		case zapcore.Int64Type, zapcore.Int32Type, zapcore.Int16Type, zapcore.Int8Type:
			b.AppendInt(f.Integer)
		case zapcore.Uint64Type, zapcore.Uint32Type, zapcore.Uint16Type, zapcore.Uint8Type:
			b.AppendUint(uint64(f.Integer))
		case zapcore.BoolType:
			b.AppendBool(f.Integer == 1)
		case zapcore.DurationType:
			b.AppendFloat(float64(f.Integer)/float64(time.Second), 64)
		default: // a type zap's encoder writes: the whole entry is its
			b.Free()
			return e.Encoder.EncodeEntry(ent, fields)
		}
	}
	b.AppendString("}\n")
	return b, nil
}

func (e *lineEncoder) callerText(c zapcore.EntryCaller) string {
	if t := e.caller.Load(); t != nil && t.caller == c {
		return t.text
	}
	t := &callerText{caller: c, text: c.TrimmedPath()}
	e.caller.Store(t)
	return t.text
}

// appendTime appends t as zapcore.ISO8601TimeEncoder writes it.
func (e *lineEncoder) appendTime(b *buffer.Buffer, t time.Time) {
	s := e.second.Load()
	if s == nil || s.unix != t.Unix() || s.loc != t.Location() {
		s = &secondText{unix: t.Unix(), loc: t.Location(), head: t.Format("2006-01-02T15:04:05."), zone: t.Format("Z0700")}
		e.second.Store(s)
	}
	b.AppendString(s.head)
	ms := t.Nanosecond() / int(time.Millisecond)
	b.AppendByte(byte('0' + ms/100))
	b.AppendByte(byte('0' + ms/10%10))
	b.AppendByte(byte('0' + ms%10))
	b.AppendString(s.zone)
}

// appendQuoted appends s as a JSON string, escaped as zap escapes: quote, backslash and control
// characters, and each byte of invalid UTF-8 as U+FFFD.
func appendQuoted(b *buffer.Buffer, s string) {
	b.AppendByte('"')
	last := 0
	for i := 0; i < len(s); {
		if plain[s[i]] {
			i++
			continue
		}
		c := s[i]
		if c >= utf8.RuneSelf {
			if r, size := utf8.DecodeRuneInString(s[i:]); r != utf8.RuneError || size != 1 {
				i += size
				continue
			}
			b.AppendString(s[last:i])
			b.AppendString(`\ufffd`)
		} else {
			b.AppendString(s[last:i])
			switch c {
			case '\\', '"':
				b.AppendByte('\\')
				b.AppendByte(c)
			case '\n':
				b.AppendString(`\n`)
			case '\r':
				b.AppendString(`\r`)
			case '\t':
				b.AppendString(`\t`)
			default:
				b.AppendString(`\u00`)
				b.AppendByte(hexDigits[c>>4])
				b.AppendByte(hexDigits[c&0xF])
			}
		}
		i++
		last = i
	}
	b.AppendString(s[last:])
	b.AppendByte('"')
}

const hexDigits = "0123456789abcdef"

// plain marks the bytes appendQuoted copies as they are: ASCII but control characters, quote and
// backslash.
var plain = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()
