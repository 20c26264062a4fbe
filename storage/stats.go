package storage

import (
	"fmt"
	"os"

	"github.com/calendard/calendard/storage/kv"
)

// FileSize returns the size of the store's file on disk. The file grows with the records and does
// not shrink when they are deleted (bbolt reuses freed pages rather than returning them), so this is
// the disk the store takes, whatever it holds now. It reads the file's metadata, not the store: no
// transaction, no lock. In cluster mode it is the size of the node's copy of the store (package
// replica). Returns ErrNotFile on a store that is not a file (kv.File).
func (db *DB) FileSize() (int64, error) {
	f, ok := db.base.(kv.File)
	if !ok {
		return 0, fmt.Errorf("storage: file size: %w", ErrNotFile)
	}
	fi, err := os.Stat(f.Path())
	if err != nil {
		return 0, fmt.Errorf("storage: file size: %w", err)
	}
	return fi.Size(), nil
}
