package index

import (
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
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
	b, err := unix.Mmap(int(file.Fd()), 0, int(info.Size()), unix.PROT_READ, unix.MAP_PRIVATE|unix.MAP_POPULATE)
	if err != nil {
		return &os.PathError{Op: "mmap", Path: path, Err: err}
	}
	defer unix.Munmap(b)
	return f(b)
}

// prefault has the kernel back the pages of s, newly made, with memory in one call
// (MADV_POPULATE_WRITE), and returns s. Decoding a projection fills a few large arrays, whose pages
// were otherwise faulted in one by one on their first write: on a virtual machine, most of a
// start's time. The pages s shares with other objects at its ends are left alone; a kernel older than
// 5.14 refuses the advice, and the pages fault in as before.
func prefault[T any](s []T) []T {
	size := uintptr(cap(s)) * unsafe.Sizeof(*new(T))
	if size == 0 {
		return s
	}
	b := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), size)
	page := uintptr(os.Getpagesize())
	start := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	if from, to := (start+page-1)&^(page-1), (start+size)&^(page-1); from < to {
		_ = unix.Madvise(b[from-start:to-start], unix.MADV_POPULATE_WRITE)
	}
	return s
}
