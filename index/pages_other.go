//go:build !linux

package index

import "os"

// readMapped calls f with the content of the file at path. Only Linux maps it (pages_linux.go).
func readMapped(path string, f func([]byte) error) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return f(b)
}

// prefault returns s: only Linux is asked to back its pages at once (pages_linux.go).
func prefault[T any](s []T) []T { return s }
