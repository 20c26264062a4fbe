// Package webhook delivers the change log to the webhook subscriptions the store keeps
// (storage.Webhook), as signed Standard Webhooks 1.0 messages (README "Webhooks", docs/API.md
// "Webhooks").
//
// # Basics
//
// A subscription is a cursor in the change feed that pushes: each delivery carries what the REST feed
// (GET {ns}/changes) would answer the subscription's user after the cursor, without the records, at
// most MaxChanges documents; a 2xx answer moves the cursor on, durably. Each subscription has one
// goroutine, so one delivery is in flight per subscription, in cursor order. Commits wake them
// (storage.DB.Subscribe); the changes committed within Options.Window of the first go together.
//
// A failed delivery is retried on Options.Schedule, carrying the same range of the log under the same
// webhook-id (the range's end is stored before the first attempt), so that a receiver that dedupes on
// the ID loses nothing and sees nothing twice; changes committed meanwhile wait for the next
// delivery. After the schedule the subscription is disabled.
//
// # Caveats
//
// Delivery is at least once: a crash after the receiver's answer and before the cursor's write sends
// the delivery again, under the same ID. A subscription further behind than the log's trimming
// allows gets a calendar.resync_required message instead of what it missed.
package webhook

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/calendard/calendard/index"
	"github.com/calendard/calendard/storage"
)

// MaxChanges bounds the documents of one delivery; more follow in the next, at once.
const MaxChanges = 100

// Defaults of Options.
const (
	DefaultWindow  = 250 * time.Millisecond
	DefaultTimeout = 15 * time.Second
	DefaultJitter  = 0.2
	DefaultPoll    = 10 * time.Second
	// maxRetryAfter bounds the wait a receiver's Retry-After asks for: the longest step of the
	// schedule, so that a wrong header cannot stop a subscription for months.
	maxRetryAfter = 24 * time.Hour
	// storeRetry is the wait before a subscription tries again after the store failed it.
	storeRetry = time.Second
)

// DefaultSchedule is the waits before each retry of a failed delivery: Standard Webhooks' schedule,
// about three days in all. A delivery that failed once more than it has steps disables its
// subscription.
var DefaultSchedule = []time.Duration{5 * time.Second, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour,
	5 * time.Hour, 10 * time.Hour, 14 * time.Hour, 20 * time.Hour, 24 * time.Hour}

// Store is what deliveries need of the record store (*storage.DB).
type Store interface {
	index.FeedStore
	ChangeHead(ctx context.Context) (uint64, error)
	Subscribe() (changed <-chan struct{}, unsubscribe func())
	Webhooks(ctx context.Context) ([]storage.Webhook, error)
	Webhook(ctx context.Context, id uint64) (*storage.Webhook, error)
	UpdateWebhook(ctx context.Context, id uint64, fn func(*storage.Webhook) error) (*storage.Webhook, error)
	User(ctx context.Context, id uint64) (*storage.User, error)
	// Now is the store's clock, which decides what is published (a scheduled record's date).
	Now() time.Time
}

// Options configure a Deliverer. The zero value of every field but UserAgent has a usable default.
type Options struct {
	Logger *zap.Logger
	// Now is the clock of the deliveries' timestamps and retry times (defaults to time.Now): a
	// receiver checks the timestamp against its own clock.
	Now func() time.Time
	// UserAgent is sent with every delivery: calendard/<version>.
	UserAgent string
	// Schedule is the waits before the retries (DefaultSchedule), each moved by up to ±Jitter of itself
	// (DefaultJitter; a negative Jitter means none).
	Schedule []time.Duration
	Jitter   float64
	// Timeout bounds one attempt (DefaultTimeout), Window is how long a delivery waits after a commit
	// for the commits that follow it (DefaultWindow), and Poll how often the subscriptions are read
	// again without a commit (DefaultPoll): changes made by another node of a cluster.
	Timeout, Window, Poll time.Duration
}

// Deliverer delivers the change log to every enabled subscription.
type Deliverer struct {
	db   Store
	log  *zap.Logger
	opts Options
	// public refuses private addresses, private allows them (storage.Webhook.AllowPrivate).
	public, private *http.Client

	statsMu sync.Mutex
	stats   Stats
}

// New returns a Deliverer of db's subscriptions.
func New(db Store, opts Options) *Deliverer {
	if opts.Logger == nil {
		opts.Logger = zap.NewNop()
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Schedule == nil {
		opts.Schedule = DefaultSchedule
	}
	switch {
	case opts.Jitter == 0:
		opts.Jitter = DefaultJitter
	case opts.Jitter < 0:
		opts.Jitter = 0
	}
	if opts.Timeout == 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.Window == 0 {
		opts.Window = DefaultWindow
	}
	if opts.Poll == 0 {
		opts.Poll = DefaultPoll
	}
	return &Deliverer{db: db, log: opts.Logger, opts: opts,
		public: newClient(opts.Timeout, false), private: newClient(opts.Timeout, true), stats: newStats()}
}

// follower is the goroutine of one subscription.
type follower struct {
	wake   chan struct{}
	cancel context.CancelFunc
	done   chan struct{}
}

// Run delivers until ctx is done, then waits for the deliveries in flight to end (each is bound by
// Options.Timeout) and returns ctx's error.
func (d *Deliverer) Run(ctx context.Context) error {
	changed, unsubscribe := d.db.Subscribe()
	defer unsubscribe()
	poll := time.NewTicker(d.opts.Poll)
	defer poll.Stop()
	followers := map[uint64]*follower{}
	defer func() {
		for _, f := range followers {
			f.cancel()
			<-f.done
		}
	}()
	for {
		if err := d.reconcile(ctx, followers); err != nil && ctx.Err() == nil {
			d.log.Warn("webhooks not read", zap.Error(err))
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-changed:
		case <-poll.C:
		}
	}
}

// reconcile starts a follower for each enabled subscription that has none, ends those of the others,
// and wakes every one.
func (d *Deliverer) reconcile(ctx context.Context, followers map[uint64]*follower) error {
	hooks, err := d.db.Webhooks(ctx)
	if err != nil {
		return err
	}
	enabled := map[uint64]bool{}
	for _, w := range hooks {
		enabled[w.ID] = !w.Disabled
	}
	for id, f := range followers {
		select {
		case <-f.done:
			delete(followers, id) // it stopped by itself: disabled, or gone
			continue
		default:
		}
		if !enabled[id] {
			f.cancel()
			<-f.done
			delete(followers, id)
		}
	}
	for id, on := range enabled {
		if f := followers[id]; on && f == nil {
			fctx, cancel := context.WithCancel(ctx)
			f = &follower{wake: make(chan struct{}, 1), cancel: cancel, done: make(chan struct{})}
			followers[id] = f
			go func() {
				defer close(f.done)
				d.follow(fctx, id, f.wake)
			}()
		} else if on {
			select {
			case f.wake <- struct{}{}:
			default:
			}
		}
	}
	return nil
}

// follow delivers one subscription's changes until it is disabled or deleted, or ctx is done.
func (d *Deliverer) follow(ctx context.Context, id uint64, wake <-chan struct{}) {
	log := d.log.With(zap.Uint64("webhook", id))
	// The first read is a write that changes nothing: a write returns once this node's copy of a
	// cluster's store has applied it, and every commit before it, the last record of the node that
	// sent before this one included; a read of the copy alone could miss it, and send again what
	// was acknowledged, or find the cursor ahead of the copy's change log.
	read := func(ctx context.Context, id uint64) (*storage.Webhook, error) {
		return d.db.UpdateWebhook(ctx, id, func(*storage.Webhook) error { return nil })
	}
	for ctx.Err() == nil {
		w, err := read(ctx, id)
		switch {
		case errors.Is(err, storage.ErrNotFound):
			return
		case err != nil:
			log.Warn("webhook not read", zap.Error(err))
			sleep(ctx, nil, storeRetry)
			continue
		case w.Disabled:
			return
		}
		read = d.db.Webhook
		if wait := w.RetryAt.Sub(d.opts.Now()); wait > 0 {
			// A wake-up re-reads the subscription: an operator may have disabled it meanwhile.
			sleep(ctx, wake, wait)
			continue
		}
		idle, err := d.deliver(ctx, log, w)
		switch {
		case err != nil && ctx.Err() == nil:
			log.Warn("webhook delivery not recorded", zap.Error(err))
			sleep(ctx, nil, storeRetry)
		case idle:
			// Nothing to deliver: wait for a commit, then for those that follow it closely.
			select {
			case <-ctx.Done():
				return
			case <-wake:
			}
			sleep(ctx, nil, d.opts.Window)
		}
	}
}

// sleep waits for dur, ctx or a wake-up.
func sleep(ctx context.Context, wake <-chan struct{}, dur time.Duration) {
	t := time.NewTimer(dur)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-wake:
	case <-t.C:
	}
}

// messageID is the webhook-id of the delivery of subscription id from cursor since: the same on every
// attempt, and different for every other delivery.
func messageID(id, since uint64) string {
	sum := sha256.Sum256([]byte(strconv.FormatUint(id, 10) + ":" + strconv.FormatUint(since, 10)))
	return "msg_" + hex.EncodeToString(sum[:16])
}

// retryIn is the wait before the retry that follows failure n (1-based), or false when the schedule
// is over.
func (d *Deliverer) retryIn(n int) (time.Duration, bool) {
	if n > len(d.opts.Schedule) {
		return 0, false
	}
	base := d.opts.Schedule[n-1]
	return base + time.Duration((rand.Float64()*2-1)*d.opts.Jitter*float64(base)), true
}

// deliver makes one attempt at the subscription's next delivery and records its outcome. idle says
// that there was nothing to deliver.
func (d *Deliverer) deliver(ctx context.Context, log *zap.Logger, w *storage.Webhook) (idle bool, err error) {
	msg, next, err := d.nextMessage(ctx, w)
	if err != nil || msg == nil {
		if err == nil && next != w.Cursor {
			// Only changes the subscription does not follow: move on without a delivery.
			_, err = d.db.UpdateWebhook(ctx, w.ID, func(s *storage.Webhook) error {
				s.Cursor, s.Pending = next, 0
				return nil
			})
			return false, err
		}
		return err == nil, err
	}
	if w.Pending == 0 {
		// Stored before the first attempt, so that a retry after a crash carries the same range.
		if _, err := d.db.UpdateWebhook(ctx, w.ID, func(s *storage.Webhook) error { s.Pending = next; return nil }); err != nil {
			return false, err
		}
	}
	res := d.send(ctx, w, msg)
	if ctx.Err() != nil {
		return false, nil // the attempt was cut by a stop: the next start makes it again
	}
	d.count(res)
	_, err = d.db.UpdateWebhook(ctx, w.ID, func(s *storage.Webhook) error {
		if s.Cursor != w.Cursor {
			return nil // recorded meanwhile by another runner: keep its record
		}
		d.record(log, s, res, next)
		return nil
	})
	return false, err
}

// record applies the outcome of an attempt at the delivery that ends at next to the subscription.
func (d *Deliverer) record(log *zap.Logger, s *storage.Webhook, res result, next uint64) {
	switch {
	case res.ok():
		s.Cursor, s.Pending, s.Failures, s.RetryAt = next, 0, 0, time.Time{}
		return
	case res.status == 410:
		s.Disabled, s.Reason = true, "the receiver answered 410 Gone"
		log.Warn("webhook disabled", zap.String("reason", s.Reason))
		return
	}
	s.Failures++
	wait, ok := d.retryIn(s.Failures)
	if !ok {
		s.Disabled, s.Reason = true, fmt.Sprintf("%d attempts failed, the last: %s", s.Failures, res)
		log.Error("webhook disabled", zap.String("reason", s.Reason))
		return
	}
	if res.retryAfter > 0 {
		wait = min(res.retryAfter, maxRetryAfter)
	}
	s.RetryAt = d.opts.Now().Add(wait)
	log.Info("webhook delivery failed", zap.Stringer("outcome", res), zap.Int("failures", s.Failures), zap.Duration("retry_in", wait))
}
