package mirror

import (
	"context"
	"errors"
	"slices"

	"github.com/calendard/calendard/storage"
)

// Store is what a source needs of the store (*storage.DB): write transactions, the links of its
// earlier runs, and what they kept of the places they read.
type Store interface {
	Bulk(ctx context.Context, a storage.Actor, fn func(*storage.Bulk) error) error
	Linked(ctx context.Context, source string) (map[string]storage.ExternalLink, error)
	LinkCounts(ctx context.Context, externals map[string]bool) (map[string]storage.LinkCount, error)
	Origin(ctx context.Context, from string) (storage.Origin, error)
}

// Refused reports whether a write failed because the store refused the record for what it holds (our
// contract's input rules), rather than failing itself: a source reports such a record as a Failure
// and goes on, and stops on anything else.
func Refused(err error) bool {
	var te *storage.TermExistsError
	return errors.As(err, &te) || slices.ContainsFunc([]error{storage.ErrInvalid, storage.ErrLinkedPost, storage.ErrConflict,
		storage.ErrWrongType, storage.ErrNotImported, storage.ErrDuplicateSlug, storage.ErrForbidden, storage.ErrTrashed, storage.ErrCannotEditOthers},
		func(target error) bool { return errors.Is(err, target) })
}
