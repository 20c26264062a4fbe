//go:build !linux

package index

import "os"

// readMapped calls f with the content of the file at path. Only Linux maps it (mapped_linux.go).
func readMapped(path string, f func([]byte) error) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return f(b)
}
