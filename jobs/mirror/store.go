package mirror

import (
	"context"

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
