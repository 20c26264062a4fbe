package handlers

import (
	"hash/maphash"
	"strings"
	"sync"
	"time"
)

// MaxAuthFailuresPerMinute bounds Config.AuthFailuresPerMinute: the throttle keeps one instant per
// failure, and a throttle that lets more than a hundred guesses a minute through protects nothing.
const MaxAuthFailuresPerMinute = 100

const (
	// failureWindow is the window of docs/API.md "Authentication and permissions": N failures within it throttle a key.
	failureWindow = time.Minute
	// maxFailureKeys and failureBudget bound the table: at most maxFailureKeys keys, and at most
	// failureBudget instants in all (8 MiB), so a table of N instants per key holds
	// min(maxFailureKeys, failureBudget/N) keys (65,536 at the default N = 10). Full, with the
	// entries' own overhead, it takes about 11 MB of heap whatever N (measured at N = 1, 10, 100).
	maxFailureKeys = 1 << 16
	failureBudget  = 1 << 20
	// failureSample is how many entries a full table compares to choose the one it evicts.
	failureSample = 8
)

// failureTable counts failed authentications per (client address, presented login) and throttles a
// key that failed N times within the window (docs/API.md "Authentication and permissions").
//
// Why not the rate limiter's token bucket: a bucket of N tokens refilled at N a minute lets one more
// attempt through 60/N seconds after N quick failures, that is N+1 failures within a minute, where
// the contract refuses every attempt after N failures within 60 s. An entry therefore keeps the
// instants of its last N failures (a sliding window): the key is throttled while the oldest of them
// is less than a minute old, and Retry-After is the time until it is not. What the two share is
// what the rate limiter does around its buckets: a map under one mutex, swept once a minute of the
// entries that carry nothing, with a cap on its size.
//
// Memory is bounded: at most capacity entries of at most N instants each, under a 64-bit key hashed
// with a per-process random seed, so that a login of 60 KB costs what a short one does. Unlike the
// rate limiter, which forgets a random bucket when it is full, a full table must not let a client
// reset its own counter by flooding the table with new keys (logins cost nothing to invent). A new
// key therefore evicts the least telling of failureSample entries: an expired one if any, else the
// one with the fewest failures in the window, the earliest-ending window on a tie. To have its own
// entry of k failures evicted, a client must first fill (nearly) the whole table with entries of at
// least k failures each, all within the same minute: capacity × k failed authentications, about
// 590,000 a minute for an entry one short of the default limit, while the service checks about 3,900
// credentials a second on 2 cores (234,000 a minute). An entry that is evicted all the same loses at
// most N failures: the client gains at most N guesses per table flood.
//
// An attempt is reserved before its credentials are checked and settled after: concurrent attempts
// count while in flight, so a thousand requests sent at once cannot all pass the check before the
// first failure is recorded.
type failureTable struct {
	n        int
	capacity int
	seed     maphash.Seed

	mu      sync.Mutex
	entries map[uint64]*failures
	// epoch is the first instant the table saw; instants are kept as offsets from it, so that a
	// clock with a monotonic reading keeps them monotonic.
	epoch time.Time
	// nextSweep is when entries with nothing in the window are next dropped (an offset).
	nextSweep time.Duration
	// refused counts the attempts begin refused, for the metrics.
	refused uint64
}

// failures is one key's entry.
type failures struct {
	// at holds the instants (offsets from the epoch) of the key's last failures, oldest first, at
	// most n of them.
	at []time.Duration
	// pending counts the attempts let through whose outcome is not known yet.
	pending int
	// logged is set when the key became throttled and was logged, and cleared when its window
	// empties: one log line per episode, not per refused attempt.
	logged bool
}

// newFailureTable returns nil when throttling is off (n ≤ 0).
func newFailureTable(n int) *failureTable {
	if n <= 0 {
		return nil
	}
	n = min(n, MaxAuthFailuresPerMinute)
	return &failureTable{n: n, capacity: min(maxFailureKeys, failureBudget/n), seed: maphash.MakeSeed(),
		entries: map[uint64]*failures{}}
}

// key is the table key of a Basic login as sent (case-insensitive), or of every Bearer attempt when
// bearer is set, from addr.
func (t *failureTable) key(addr string, bearer bool, login string) uint64 {
	var h maphash.Hash
	h.SetSeed(t.seed)
	h.WriteString(addr)
	h.WriteByte(0) // addr holds no NUL: the fields cannot run into each other
	if bearer {
		h.WriteByte('t')
	} else {
		h.WriteByte('b')
		h.WriteString(strings.ToLower(login))
	}
	return h.Sum64()
}

// begin reserves an attempt of key at now. It returns 0 when the attempt may go ahead, and the caller
// must then settle it with end; otherwise how long until one may.
func (t *failureTable) begin(key uint64, now time.Time) (wait time.Duration) {
	t.mu.Lock()
	defer t.mu.Unlock()
	off := t.offset(now)
	if off >= t.nextSweep {
		t.sweep(off)
	}
	e := t.entry(key, off)
	e.prune(off)
	if len(e.at)+e.pending >= t.n {
		t.refused++
		if len(e.at) < t.n {
			// Attempts in flight fill the limit: they settle within moments, either way.
			return time.Second
		}
		// A clock that went back does not stretch the wait past the window.
		return min(failureWindow, e.at[len(e.at)-t.n]+failureWindow-off)
	}
	e.pending++
	return 0
}

// rejections is how many attempts begin refused so far.
func (t *failureTable) rejections() uint64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.refused
}

// end settles an attempt begin let through, or records a failure of a key no attempt reserved (the
// other name of an account, countOtherName). It reports whether this failure made the key throttled
// for the first time in its episode, which the caller logs.
func (t *failureTable) end(key uint64, now time.Time, failed bool) (throttled bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	off := t.offset(now)
	e, ok := t.entries[key]
	if !ok {
		if !failed {
			return false // evicted meanwhile; a success has nothing to record
		}
		e = t.entry(key, off)
	}
	e.pending = max(0, e.pending-1)
	if !failed {
		if len(e.at) == 0 && e.pending == 0 {
			delete(t.entries, key) // a success alone says nothing: keep the table for failures
		}
		return false
	}
	e.prune(off)
	if e.at == nil {
		e.at = make([]time.Duration, 0, t.n) // its final size: appends never grow it past n
	}
	e.at = append(e.at, off)
	if extra := len(e.at) - t.n; extra > 0 {
		e.at = append(e.at[:0], e.at[extra:]...)
	}
	if len(e.at) == t.n && !e.logged {
		e.logged = true
		return true
	}
	return false
}

// offset is now as an offset from the table's epoch. It runs under t.mu.
func (t *failureTable) offset(now time.Time) time.Duration {
	if t.epoch.IsZero() {
		t.epoch = now
	}
	return now.Sub(t.epoch)
}

// entry returns key's entry, adding it, and evicting another when the table is full. It runs under
// t.mu.
func (t *failureTable) entry(key uint64, off time.Duration) *failures {
	if e, ok := t.entries[key]; ok {
		return e
	}
	if len(t.entries) >= t.capacity {
		t.evict(off)
	}
	e := &failures{}
	t.entries[key] = e
	return e
}

// evict drops the least telling of failureSample entries (see failureTable). Map iteration starts
// at a random place, and the keys are hashes under a secret seed, so the sample is a random one that
// a client cannot steer. It runs under t.mu.
func (t *failureTable) evict(off time.Duration) {
	var victim uint64
	var victimCount int
	var victimStart time.Duration
	seen := 0
	for k, e := range t.entries {
		count, start := e.inWindow(off)
		if seen == 0 || count < victimCount || count == victimCount && start < victimStart {
			victim, victimCount, victimStart = k, count, start
		}
		if seen++; seen == failureSample || count == 0 {
			break
		}
	}
	delete(t.entries, victim)
}

// sweep drops the entries with no failure in the window and no attempt in flight: they carry
// nothing. It runs under t.mu, once a window at most, so a table holds about the keys that failed
// in the last two minutes.
func (t *failureTable) sweep(off time.Duration) {
	for k, e := range t.entries {
		if count, _ := e.inWindow(off); count == 0 {
			delete(t.entries, k)
		}
	}
	t.nextSweep = off + failureWindow
}

// inWindow is what an entry weighs at off: its failures in the window plus its attempts in flight,
// and the instant its window started (its oldest failure in the window, off when none).
func (e *failures) inWindow(off time.Duration) (count int, start time.Duration) {
	start = off
	for i, at := range e.at {
		if at > off-failureWindow {
			return len(e.at) - i + e.pending, at
		}
	}
	return e.pending, start
}

// prune drops the failures that left the window at off; an entry whose window empties ends its
// episode.
func (e *failures) prune(off time.Duration) {
	i := 0
	for i < len(e.at) && e.at[i] <= off-failureWindow {
		i++
	}
	if i > 0 {
		e.at = append(e.at[:0], e.at[i:]...)
	}
	if len(e.at) == 0 {
		e.logged = false
	}
}
