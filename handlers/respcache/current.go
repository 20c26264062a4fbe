package respcache

import (
	"context"
	"time"

	"github.com/calendard/calendard/storage"
)

// Changes is what Current needs of the store: which documents the change log names after a
// position (storage.DB.ChangedSince).
type Changes interface {
	ChangedSince(ctx context.Context, after uint64, limit int) (map[storage.Doc]uint64, bool, error)
}

// maxItemChanges bounds the change-log entries read to judge cached items; past it, items older than
// the newest write are rendered again.
const maxItemChanges = 1000

// Current returns, by key, the entries of keys still current with the store at head and the clock at
// now: computed at head, or earlier with no change-log entry since naming a document of their Deps,
// and with now between their From and Until. It counts a hit for each and a miss for every other
// key. This is how the item cache judges its entries: an item is the same in every list that shows
// it, so it is kept while nothing it embeds changes, however many writes touch other documents.
func (c *Cache) Current(ctx context.Context, log Changes, keys []string, head uint64, now time.Time) (map[string]*Entry, error) {
	entries := make(map[string]*Entry, len(keys))
	oldest := head
	for _, key := range keys {
		e := c.Peek(key)
		if e == nil || e.Head > head || now.Before(e.From) || !now.Before(e.Until) {
			continue
		}
		entries[key] = e
		oldest = min(oldest, e.Head)
	}
	// changed holds, per document named since oldest, the newest entry naming it; known is the oldest
	// head from which the change log was read completely.
	var changed map[storage.Doc]uint64
	known := oldest
	if oldest < head {
		var complete bool
		var err error
		if changed, complete, err = log.ChangedSince(ctx, oldest, maxItemChanges); err != nil {
			return nil, err
		}
		if !complete {
			known = head // trimmed past oldest, or too many to read: only items rendered at head are judged
		}
	}
	for key, e := range entries {
		if e.Head < known {
			delete(entries, key)
			continue
		}
		for _, d := range e.Deps {
			if changed[d] > e.Head {
				delete(entries, key)
				break
			}
		}
	}
	c.Tally(len(entries), len(keys)-len(entries))
	return entries, nil
}
