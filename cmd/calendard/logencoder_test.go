package main

import (
	"bytes"
	"errors"
	"math"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// steppingClock stamps entries with its instants in turn, then with the last one, so that two
// loggers' lines compare.
type steppingClock struct{ at []time.Time }

func (c *steppingClock) Now() time.Time {
	t := c.at[0]
	if len(c.at) > 1 {
		c.at = c.at[1:]
	}
	return t
}

func (c *steppingClock) NewTicker(d time.Duration) *time.Ticker { return time.NewTicker(d) }

// twoLoggers are the service's logger and one on zap's own JSON encoder with the same configuration,
// each writing to its buffer, at the instants at in turn.
func twoLoggers(at ...time.Time) (ours, zaps *zap.Logger, oursOut, zapsOut *bytes.Buffer) {
	oursOut, zapsOut = new(bytes.Buffer), new(bytes.Buffer)
	build := func(enc zapcore.Encoder, out *bytes.Buffer) *zap.Logger {
		return zap.New(zapcore.NewCore(enc, zapcore.AddSync(out), zap.DebugLevel), zap.AddCaller(),
			zap.WithClock(&steppingClock{at}))
	}
	return build(newLineEncoder(), oursOut), build(zapcore.NewJSONEncoder(logEncoderConfig()), zapsOut), oursOut, zapsOut
}

// The service's encoder writes every line as zap's JSON encoder does: the entries it writes itself
// and those it hands to zap's.
func TestLineEncoderWritesAsZap(t *testing.T) {
	amsterdam, err := time.LoadLocation("Europe/Amsterdam")
	if err != nil {
		t.Fatal(err)
	}
	request := []zap.Field{zap.String("method", "GET"), zap.String("path", "/calendar/events/v1/events"),
		zap.String("query", "per_page=10&search=caf%C3%A9"), zap.Int("status", 200), zap.Int("bytes", 3811),
		zap.Duration("duration", 1234567*time.Nanosecond), zap.String("remote", "192.0.2.1"),
		zap.Uint64("user_id", 0), zap.String("user_agent", "Mozilla/5.0 (X11)"), zap.String("request_id", "a1b2")}
	for _, tc := range []struct {
		name string
		at   []time.Time
		log  func(l *zap.Logger)
	}{
		{"a request's line", []time.Time{time.Date(2026, 12, 8, 1, 2, 3, 456789000, time.UTC)}, func(l *zap.Logger) {
			l.Named("http").Info("request", request...)
		}},
		{"a zone's offset, no name", []time.Time{time.Date(2026, 7, 1, 23, 59, 59, 999999999, amsterdam)}, func(l *zap.Logger) {
			l.Warn("slow", zap.Duration("took", 90*time.Second))
		}},
		{"one second in two zones, then the next", []time.Time{time.Date(2026, 3, 29, 0, 59, 59, 1e6, time.UTC),
			time.Date(2026, 3, 29, 0, 59, 59, 2e6, time.UTC).In(amsterdam), time.Date(2026, 3, 29, 1, 0, 0, 0, time.UTC).In(amsterdam),
			time.Date(2026, 3, 29, 1, 0, 0, 5e6, time.UTC)}, func(l *zap.Logger) {
			for range 4 {
				l.Info("tick")
			}
		}},
		{"levels and nested names", []time.Time{time.Unix(0, 0)}, func(l *zap.Logger) {
			l.Debug("d")
			l.Named("a").Named("b.c").Error("e", zap.Bool("yes", true), zap.Bool("no", false))
		}},
		{"escapes", []time.Time{time.Unix(1, 0)}, func(l *zap.Logger) {
			l.Info("quote \" backslash \\ newline \n return \r tab \t bell \x07 del \x7f",
				zap.String("invalid utf-8", "a\xffb\xc3"), zap.String("runes", "café 😀 日本"),
				zap.String("key \"quoted\"\n", "v"), zap.String("", ""))
		}},
		{"numbers", []time.Time{time.Unix(2, 0)}, func(l *zap.Logger) {
			l.Info("n", zap.Int64("min", math.MinInt64), zap.Int32("i32", -7), zap.Int16("i16", 300),
				zap.Int8("i8", -8), zap.Uint64("max", math.MaxUint64), zap.Uint32("u32", 7), zap.Uint16("u16", 9),
				zap.Uint8("u8", 255), zap.Duration("zero", 0), zap.Duration("ns", 1), zap.Duration("neg", -1500*time.Millisecond),
				zap.Duration("long", math.MaxInt64))
		}},
		{"fields zap's encoder writes", []time.Time{time.Unix(3, 0)}, func(l *zap.Logger) {
			l.Error("failed", zap.Error(errors.New("disk full")), zap.Float64("f", 0.5), zap.Strings("s", []string{"x"}),
				zap.Time("t", time.Unix(4, 0)), zap.Any("any", map[string]int{"k": 1}))
		}},
		{"a field zap's encoder writes after ours", []time.Time{time.Unix(4, 0)}, func(l *zap.Logger) {
			l.Warn("slow", zap.String("path", "/x"), zap.Int("status", 200), zap.Float64("seconds", 2.5))
		}},
		{"a stack", []time.Time{time.Unix(5, 0)}, func(l *zap.Logger) {
			l.WithOptions(zap.AddStacktrace(zap.ErrorLevel)).Error("panic", zap.String("request_id", "x"))
		}},
		{"a logger's own fields", []time.Time{time.Unix(6, 0)}, func(l *zap.Logger) {
			with := l.With(zap.String("lang", "nl"))
			with.Info("indexed", zap.Int("docs", 3))
			l.Info("without", zap.Int("docs", 4))
			with.With(zap.Int("more", 1)).Info("twice")
		}},
		{"a namespace", []time.Time{time.Unix(7, 0)}, func(l *zap.Logger) {
			l.Info("ns", zap.Namespace("inner"), zap.String("k", "v"))
		}},
		{"without a caller", []time.Time{time.Unix(8, 0)}, func(l *zap.Logger) {
			l.WithOptions(zap.WithCaller(false)).Info("no caller", zap.String("k", "v"))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ours, zaps, oursOut, zapsOut := twoLoggers(tc.at...)
			for _, l := range []*zap.Logger{ours, zaps} { // one line: a stack names it
				tc.log(l)
			}
			if oursOut.String() != zapsOut.String() {
				t.Errorf("lines differ\nours: %s\nzap's: %s", oursOut, zapsOut)
			}
		})
	}
}

// Whatever a client puts in a line (its path, query, user agent), the line reads as zap would write it.
func FuzzLineEncoder(f *testing.F) {
	f.Add("/calendar/events/v1/events", "per_page=10", int64(200), uint64(7), int64(1500000))
	f.Add("a\xffb\x00\"\\\n", "é😀\t\r", int64(-1), uint64(math.MaxUint64), int64(math.MinInt64))
	f.Fuzz(func(t *testing.T, path, agent string, status int64, user uint64, took int64) {
		ours, zaps, oursOut, zapsOut := twoLoggers(time.Unix(1, 2))
		for _, l := range []*zap.Logger{ours, zaps} {
			l.Info(path, zap.String(agent, path), zap.String("user_agent", agent), zap.Int64("status", status),
				zap.Uint64("user_id", user), zap.Duration("duration", time.Duration(took)))
		}
		if oursOut.String() != zapsOut.String() {
			t.Errorf("lines differ\nours: %s\nzap's: %s", oursOut, zapsOut)
		}
	})
}

// BenchmarkRequestLine measures writing one request's line as the service does (its fields as
// handlers' observe logs them) with the service's encoder and with zap's own.
func BenchmarkRequestLine(b *testing.B) {
	fields := []zap.Field{zap.String("method", "GET"), zap.String("path", "/calendar/events/v1/events"),
		zap.String("query", "per_page=10"), zap.Int("status", 200), zap.Int("bytes", 3811),
		zap.Duration("duration", 41*time.Microsecond), zap.String("remote", "192.0.2.1"), zap.Uint64("user_id", 0),
		zap.String("user_agent", "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36"),
		zap.String("request_id", "0f9a8b7c6d5e4f3a2b1c0d9e")}
	for _, enc := range []struct {
		name string
		enc  zapcore.Encoder
	}{{"ours", newLineEncoder()}, {"zap", zapcore.NewJSONEncoder(logEncoderConfig())}} {
		b.Run(enc.name, func(b *testing.B) {
			log := zap.New(zapcore.NewCore(enc.enc, zapcore.AddSync(discard{}), zap.InfoLevel)).Named("http")
			caller := zapcore.NewEntryCaller(0, "/src/calendard/handlers/chain.go", 58, true)
			b.ReportAllocs()
			for b.Loop() {
				if ce := log.Check(zap.InfoLevel, "request"); ce != nil {
					ce.Caller = caller
					ce.Write(fields...)
				}
			}
		})
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
