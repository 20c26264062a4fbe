package pause

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"
)

// TestSleep: Sleep waits the whole duration when nothing cancels it, and ends with the context's
// error when the context ends first. The bubble's clock is fake, so the durations are exact.
func TestSleep(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		if err := Sleep(t.Context(), time.Hour); err != nil {
			t.Fatalf("Sleep = %v, want nil", err)
		}
		if got := time.Since(start); got != time.Hour {
			t.Errorf("Sleep returned after %s, want 1h", got)
		}

		ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
		defer cancel()
		start = time.Now()
		if err := Sleep(ctx, time.Hour); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Sleep past the deadline = %v, want context.DeadlineExceeded", err)
		}
		if got := time.Since(start); got != time.Minute {
			t.Errorf("Sleep past the deadline returned after %s, want 1m", got)
		}
	})
}
