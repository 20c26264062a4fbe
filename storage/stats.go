package storage

import (
	"fmt"
	"os"
)

// FileSize returns the size of the store's file on disk. The file grows with the records and does
// not shrink when they are deleted (bbolt reuses freed pages rather than returning them), so this is
// the disk the store takes, whatever it holds now. It reads the file's metadata, not the store: no
// transaction, no lock. In cluster mode it is the size of the node's copy of the store. Returns
// ErrNotFile on another store that is not a file (OpenStore).
func (db *DB) FileSize() (int64, error) {
	var path string
	if db.bolt != nil {
		path = db.bolt.Path()
	} else if f, ok := db.kv.(interface{ Path() string }); ok {
		path = f.Path() // a cluster node's copy of the store (package replica)
	} else {
		return 0, fmt.Errorf("storage: file size: %w", ErrNotFile)
	}
	fi, err := os.Stat(path)
	if err != nil {
		return 0, fmt.Errorf("storage: file size: %w", err)
	}
	return fi.Size(), nil
}
