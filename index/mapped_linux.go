package index

import (
	"os"
	"syscall"
)

// readMapped calls f with the content of the file at path, mapped into memory rather than read: the
// pages of the kernel's cache are mapped at once (MAP_POPULATE), where reading copied them into as
// many fresh pages of the heap, each faulted in on its first write. The bytes are valid only while f
// runs: f keeps none of them.
func readMapped(path string, f func([]byte) error) error {
	file, err := os.Open(path)
	if err != nil {
		return err
	}
	defer file.Close()
	info, err := file.Stat()
	if err != nil {
		return err
	}
	if info.Size() == 0 {
		return f(nil)
	}
	b, err := syscall.Mmap(int(file.Fd()), 0, int(info.Size()), syscall.PROT_READ, syscall.MAP_PRIVATE|syscall.MAP_POPULATE)
	if err != nil {
		return &os.PathError{Op: "mmap", Path: path, Err: err}
	}
	defer syscall.Munmap(b)
	return f(b)
}
