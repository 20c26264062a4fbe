package index

import (
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// mapFile maps the file at path into memory, copy-on-write, and returns its bytes with a func that
// unmaps them. The pages of the kernel's cache are mapped at once (MAP_POPULATE), read-only so that
// populating copies none of them, then made writable: a decoded projection holds its arrays in these
// bytes (decodeProjection), and a live update that writes to one gets a private copy of that page
// alone; the file never changes. The caller unmaps only what nothing can read any more.
func mapFile(path string) ([]byte, func(), error) {
	file, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer file.Close()
	info, err := file.Stat()
	if err != nil {
		return nil, nil, err
	}
	if info.Size() == 0 {
		return nil, func() {}, nil
	}
	b, err := unix.Mmap(int(file.Fd()), 0, int(info.Size()), unix.PROT_READ, unix.MAP_PRIVATE|unix.MAP_POPULATE)
	if err != nil {
		return nil, nil, &os.PathError{Op: "mmap", Path: path, Err: err}
	}
	if err := unix.Mprotect(b, unix.PROT_READ|unix.PROT_WRITE); err != nil {
		_ = unix.Munmap(b)
		return nil, nil, &os.PathError{Op: "mprotect", Path: path, Err: err}
	}
	return b, func() { _ = unix.Munmap(b) }, nil
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
