// Package pause waits for a while unless the work is cancelled: the pause of a backend between
// retries, of a client backing off, and of work that paces itself (the index's consistency check).
// It is a leaf, so that each of them pauses without importing another's package.
package pause

import (
	"context"
	"time"
)

// Sleep waits d, or until ctx is done, and then returns ctx's error.
func Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
