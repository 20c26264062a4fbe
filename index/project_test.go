package index

import (
	"reflect"
	"testing"
	"unsafe"
)

// TestEventRowStaysSmall: every list scans every row of its window, so a row must stay 72 bytes and
// free of pointers (which would also make the garbage collector visit each row). New per-event data
// that is not scanned belongs in eventLinks.
func TestEventRowStaysSmall(t *testing.T) {
	if size := unsafe.Sizeof(eventRow{}); size > 72 {
		t.Errorf("eventRow is %d bytes, want at most 72", size)
	}
	rt := reflect.TypeFor[eventRow]()
	for i := range rt.NumField() {
		switch f := rt.Field(i); f.Type.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Map, reflect.String, reflect.Interface, reflect.Chan, reflect.Func:
			t.Errorf("eventRow.%s is a %s, which holds a pointer", f.Name, f.Type.Kind())
		}
	}
}
