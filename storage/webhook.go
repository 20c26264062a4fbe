package storage

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/calendard/calendard/storage/kv"
)

// WebhookSecretPrefix starts every webhook secret, as Standard Webhooks writes them.
const WebhookSecretPrefix = "whsec_"

// WebhookSecretOverlap is how long the secret a rotation replaced still signs deliveries beside the
// new one, so that receivers can switch without missing one.
const WebhookSecretOverlap = 24 * time.Hour

// Webhook is a subscription to the change log: a cursor that package jobs/webhook pushes to URL as
// signed deliveries (README "Webhooks"). It holds its secret: a backup holds it too.
type Webhook struct {
	ID  uint64 `json:"id"`
	URL string `json:"url"`
	// UserID is the user whose visibility the deliveries have; 0 is anonymous (published records).
	UserID uint64 `json:"user,omitempty"`
	// Kinds and Langs restrict the changes delivered; empty means every one.
	Kinds []DocKind `json:"kinds,omitempty"`
	Langs []Lang    `json:"langs,omitempty"`
	// AllowHTTP and AllowPrivate lift the refusal of plain http and of loopback, private and
	// link-local addresses.
	AllowHTTP    bool   `json:"allow_http,omitempty"`
	AllowPrivate bool   `json:"allow_private,omitempty"`
	Secret       string `json:"secret"`
	// OldSecret is the secret a rotation replaced, which signs beside Secret until OldSecretUntil.
	OldSecret      string    `json:"old_secret,omitempty"`
	OldSecretUntil time.Time `json:"old_secret_until,omitzero"`
	// Cursor is the change-log position delivered and acknowledged: deliveries go on after it.
	Cursor uint64 `json:"cursor"`
	// Pending is the end of the delivery being retried (0 when none), so that every attempt carries
	// the same changes under the same webhook-id. Failures counts its failed attempts, and RetryAt is
	// when the next one is due.
	Pending  uint64    `json:"pending,omitempty"`
	Failures int       `json:"failures,omitempty"`
	RetryAt  time.Time `json:"retry_at,omitzero"`
	// Disabled stops deliveries; Reason says why (an operator, a 410, retries exhausted).
	Disabled bool      `json:"disabled,omitempty"`
	Reason   string    `json:"reason,omitempty"`
	Created  time.Time `json:"created"`
}

// Signs reports the secrets that sign a delivery made at now: the current one, and the one a rotation
// replaced during WebhookSecretOverlap.
func (w *Webhook) Signs(now time.Time) []string {
	if w.OldSecret != "" && now.Before(w.OldSecretUntil) {
		return []string{w.Secret, w.OldSecret}
	}
	return []string{w.Secret}
}

// Wants reports whether the subscription delivers changes of documents of kind k.
func (w *Webhook) Wants(k DocKind) bool { return len(w.Kinds) == 0 || slices.Contains(w.Kinds, k) }

// ParseDocKind returns the kind called s (event, venue, organizer, category, tag).
func ParseDocKind(s string) (DocKind, bool) {
	for k := DocEvent; k <= DocTag; k++ {
		if k.String() == s {
			return k, true
		}
	}
	return 0, false
}

// newWebhookSecret returns a secret of 32 random bytes in the Standard Webhooks form.
func newWebhookSecret() (string, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return WebhookSecretPrefix + base64.StdEncoding.EncodeToString(b[:]), nil
}

// CreateWebhook stores a subscription whose deliveries start after the current change-log head, with
// a new secret, acting as the user called login (anonymous when empty). The caller has checked the
// URL (package jobs/webhook). Returns ErrNotFound for an unknown login.
func (db *DB) CreateWebhook(ctx context.Context, w Webhook, login string) (*Webhook, error) {
	secret, err := newWebhookSecret()
	if err != nil {
		return nil, fmt.Errorf("storage: create webhook: %w", err)
	}
	err = db.update(ctx, func(tx kv.RwTx) error {
		w.UserID = 0
		if login != "" {
			u, err := userByName(tx, login, false)
			if err != nil {
				return err
			}
			w.UserID = u.ID
		}
		id, err := tx.NextSequence(bWebhooks)
		if err != nil {
			return err
		}
		w.ID, w.Secret, w.Cursor, w.Created = id, secret, tx.Sequence(bOutbox), db.now().UTC()
		return put(tx, bWebhooks, id, w)
	})
	if err != nil {
		return nil, fmt.Errorf("storage: create webhook: %w", err)
	}
	return &w, nil
}

// Webhooks lists every subscription by ID.
func (db *DB) Webhooks(ctx context.Context) ([]Webhook, error) {
	return all[Webhook](ctx, db, bWebhooks)
}

// Webhook returns the subscription with the given ID, or ErrNotFound.
func (db *DB) Webhook(ctx context.Context, id uint64) (*Webhook, error) {
	var w *Webhook
	err := db.kv.View(ctx, func(tx kv.Tx) (err error) {
		w, err = get[Webhook](tx, bWebhooks, id)
		return err
	})
	return w, err
}

// UpdateWebhook changes the subscription with the given ID through fn, in one transaction, and returns
// it as stored. fn may run more than once (kv.Store.Update). Returns ErrNotFound if it does not exist.
func (db *DB) UpdateWebhook(ctx context.Context, id uint64, fn func(*Webhook) error) (*Webhook, error) {
	var w *Webhook
	err := db.update(ctx, func(tx kv.RwTx) (err error) {
		if w, err = get[Webhook](tx, bWebhooks, id); err != nil {
			return err
		}
		if err := fn(w); err != nil {
			return err
		}
		return put(tx, bWebhooks, id, w)
	})
	if err != nil {
		return nil, fmt.Errorf("storage: update webhook %d: %w", id, err)
	}
	return w, nil
}

// RotateWebhookSecret gives the subscription a new secret and returns it; the old one signs beside it
// for WebhookSecretOverlap. Returns ErrNotFound if it does not exist.
func (db *DB) RotateWebhookSecret(ctx context.Context, id uint64) (*Webhook, error) {
	secret, err := newWebhookSecret()
	if err != nil {
		return nil, fmt.Errorf("storage: rotate webhook secret: %w", err)
	}
	now := db.now().UTC()
	return db.UpdateWebhook(ctx, id, func(w *Webhook) error {
		w.OldSecret, w.OldSecretUntil, w.Secret = w.Secret, now.Add(WebhookSecretOverlap), secret
		return nil
	})
}

// DeleteWebhook removes the subscription with the given ID. Returns ErrNotFound if it does not exist.
func (db *DB) DeleteWebhook(ctx context.Context, id uint64) error {
	err := db.update(ctx, func(tx kv.RwTx) error {
		if tx.Get(bWebhooks, u64(id)) == nil {
			return ErrNotFound
		}
		return tx.Delete(bWebhooks, u64(id))
	})
	if err != nil {
		return fmt.Errorf("storage: delete webhook %d: %w", id, err)
	}
	return nil
}

// webhookFloor is the lowest cursor of an enabled subscription: the change log after it is still to
// be delivered. It is the highest number when there is none.
func (db *DB) webhookFloor(ctx context.Context) (uint64, error) {
	hooks, err := db.Webhooks(ctx)
	floor := uint64(math.MaxUint64)
	for _, w := range hooks {
		if !w.Disabled {
			floor = min(floor, w.Cursor)
		}
	}
	return floor, err
}

// ParseWebhookKinds reads a comma-separated list of document kinds; empty means every kind.
func ParseWebhookKinds(s string) ([]DocKind, error) {
	return parseList(s, "types", "event, venue, organizer, category, tag", ParseDocKind)
}

// ParseWebhookLangs reads a comma-separated list of language codes; empty means every language.
func ParseWebhookLangs(s string) ([]Lang, error) {
	return parseList(s, "lang", "nl, en, fr, de, it, pl, es", ParseLang)
}

// parseList reads a comma-separated list of values of parse, a *FieldError on field naming the
// values allowed when one is not.
func parseList[T any](s, field, allowed string, parse func(string) (T, bool)) ([]T, error) {
	var out []T
	for f := range strings.SplitSeq(s, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		v, ok := parse(f)
		if !ok {
			return nil, invalid(field, "%q is not one of %s", f, allowed)
		}
		out = append(out, v)
	}
	return out, nil
}
