package storage

import (
	"context"
	"fmt"
	"testing"
)

// TestRefused: the store's refusals of a record, wrapped as its methods return them, are refused; its
// own failures and a cancelled context are not, so an import stops on them.
func TestRefused(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{"a field", &FieldError{Field: "title", Reason: "empty"}, true},
		{"a linked record", &FieldError{Field: "venue", Reason: "trashed", Kind: ErrLinkedPost}, true},
		{"a term's name", fmt.Errorf("bulk: %w", &TermExistsError{ID: 7}), true},
		{"a translation", fail(OpCreate, DocEvent, 0, ErrConflict), true},
		{"a type", fail(OpUpdate, DocEvent, 3, ErrWrongType), true},
		{"another source's record", fmt.Errorf("link: %w", ErrNotImported), true},
		{"a term's slug", fail(OpUpdate, DocTag, 4, ErrDuplicateSlug), true},
		{"a permission", ErrForbidden, true},
		{"the trash", fail(OpTrash, DocEvent, 5, ErrTrashed), true},
		{"an author", ErrCannotEditOthers, true},
		{"no record", fail(OpGet, DocEvent, 6, ErrNotFound), false},
		{"a full disk", fmt.Errorf("%w: write", ErrNoSpace), false},
		{"the cluster", ErrUnavailable, false},
		{"a large write", ErrTooLarge, false},
		{"a cancelled context", context.Canceled, false},
		{"none", nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Refused(tc.err); got != tc.want {
				t.Errorf("Refused(%v) = %v, want %v", tc.err, got, tc.want)
			}
		})
	}
}
