//go:build !linux

package index

import "os"

// mapFile returns the content of the file at path, read into the heap, and a func that does nothing:
// only Linux maps it (pages_linux.go). A decoded projection holds its arrays in these bytes all the
// same (decodeProjection).
func mapFile(path string) ([]byte, func(), error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	return b, func() {}, nil
}

// prefault returns s: only Linux is asked to back its pages at once (pages_linux.go).
func prefault[T any](s []T) []T { return s }
