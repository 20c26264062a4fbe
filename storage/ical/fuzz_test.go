package ical

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// FuzzDecode checks that no input makes Decode panic or hang, and that whatever it decodes,
// Encode writes and Decode reads back to the same calendar. Seeds are the fixtures in testdata
// and the inputs in testdata/fuzz/FuzzDecode.
func FuzzDecode(f *testing.F) {
	fixtures, err := filepath.Glob("testdata/*.ics")
	if err != nil {
		f.Fatal(err)
	}
	for _, name := range fixtures {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	// Small limits keep each input cheap; the limits themselves are then exercised too.
	limits := Limits{MaxBytes: 1 << 20, MaxLineBytes: 1 << 12, MaxEvents: 100, MaxProperties: 100}
	f.Fuzz(func(t *testing.T, data []byte) {
		first, err := Decode(bytes.NewReader(data), limits)
		var skipped EventErrors
		if err != nil && !errors.As(err, &skipped) {
			if first != nil {
				t.Fatalf("fatal error %v with a calendar", err)
			}
			return
		}
		if first.ProdID == "" {
			// PRODID is required on output but not on input, and so is DTSTAMP.
			first.ProdID = "-//fuzz//EN"
		}
		for i := range first.Events {
			if first.Events[i].Stamp.IsZero() {
				first.Events[i].Stamp = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			}
		}
		// What Decode read otherwise than RFC 5545 has it, Encode writes as RFC 5545 has it.
		first.Warnings = nil
		var buf bytes.Buffer
		if err := Encode(&buf, first); err != nil {
			t.Fatalf("Encode of a decoded calendar: %v", err)
		}
		encoded := buf.String()
		second, err := Decode(&buf, Limits{})
		if err != nil {
			t.Fatalf("Decode of Encode's output: %v\n%s", err, encoded)
		}
		if diff := cmp.Diff(first, second, eventOpts); diff != "" {
			t.Fatalf("Decode(Encode(Decode(x))) differs from Decode(x) (-first +second):\n%s\n%s", diff, encoded)
		}
	})
}
