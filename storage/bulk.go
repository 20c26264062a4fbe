package storage

import (
	"context"
	"fmt"

	"github.com/calendard/calendard/storage/kv"
)

// Bulk creates many records in one transaction: one fsync for thousands of records instead of one
// each, which is what loading demo or benchmark data needs. Every rule of the single-record
// operations applies, and the change log is written as usual.
type Bulk struct{ w *writer }

// Bulk runs fn in one write transaction on behalf of a; nothing fn created is kept if it fails.
func (db *DB) Bulk(ctx context.Context, a Actor, fn func(*Bulk) error) error {
	err := db.update(ctx, func(tx kv.RwTx) error {
		w := db.newWriter(tx, a)
		if err := fn(&Bulk{w: w}); err != nil {
			return err
		}
		return w.flush()
	})
	if err != nil {
		return fmt.Errorf("storage: bulk write: %w", err)
	}
	return nil
}

// CreateEvent is DB.CreateEvent inside the bulk transaction.
func (b *Bulk) CreateEvent(lang Lang, in *EventInput) (*Event, error) {
	return b.w.createEvent(lang, in)
}

// CreateVenue is DB.CreateVenue inside the bulk transaction; it returns the ID of the new or
// duplicated venue.
func (b *Bulk) CreateVenue(lang Lang, in *VenueInput) (uint64, error) {
	return b.w.createVenue(lang, in)
}

// CreateOrganizer is DB.CreateOrganizer inside the bulk transaction.
func (b *Bulk) CreateOrganizer(lang Lang, in *OrganizerInput) (uint64, error) {
	return b.w.createOrganizer(lang, in)
}

// CreateTerm is DB.CreateTerm inside the bulk transaction.
func (b *Bulk) CreateTerm(tax Taxonomy, in *TermInput) (*Term, error) { return b.w.createTerm(tax, in) }
