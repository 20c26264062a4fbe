package storage

import (
	"errors"
	"fmt"
	"slices"

	"github.com/calendard/calendard/storage/kv"
)

// Lookup errors.
var (
	// ErrNotFound is returned when no record, term or user has the requested ID, slug or name.
	ErrNotFound = errors.New("storage: not found")

	// ErrWrongType is returned when an ID exists but designates another kind of record, e.g. a venue ID
	// given to an event operation.
	ErrWrongType = errors.New("storage: wrong record type")

	// ErrCompacted is returned when the change log is read from a position whose following entries
	// were trimmed: the reader has missed changes and must start again from the records themselves
	// (an index rebuilds, a change-feed client lists again).
	ErrCompacted = errors.New("storage: change log trimmed past the requested position")
)

// Backend errors.
var (
	// ErrUnavailable is returned when the store's backend could not be reached in time (an etcd
	// cluster in cluster mode), and the same call can succeed once it is back. A write that failed so
	// may have been applied all the same (kv.ErrUnavailable).
	ErrUnavailable = kv.ErrUnavailable

	// ErrTooLarge is returned by a write that changes more than the backend takes in one transaction
	// (a long series in cluster mode, with etcd's default limits): nothing of it was written.
	ErrTooLarge = kv.ErrTooLarge

	// ErrNotFile is returned by Backup and FileSize on a store whose backend has no file to copy or to
	// measure (etcd: see kv.Backuper and kv.File).
	ErrNotFile = errors.New("storage: the store is not a file")
)

// Write errors.
var (
	// ErrNoSpace is returned when a write failed because the disk is full: nothing of it was kept, and
	// the same write can succeed once space returns (DB.Full).
	ErrNoSpace = errors.New("storage: no space left on the device")

	// ErrInvalid is the kind of every *FieldError: a supplied value breaks a rule of the store.
	ErrInvalid = errors.New("storage: invalid value")

	// ErrLinkedPost is the kind of a *FieldError naming a venue or organizer that exists but may not be
	// linked: trashed, of another language, or unreadable by the caller.
	ErrLinkedPost = errors.New("storage: linked record not linkable")

	// ErrTrashed is returned when trashing a record that is already in the trash.
	ErrTrashed = errors.New("storage: already trashed")

	// ErrConflict is returned when a translation group already holds a record in the new record's
	// language.
	ErrConflict = errors.New("storage: translation already exists")

	// ErrDuplicateSlug is returned when an explicit term slug on update belongs to another term.
	ErrDuplicateSlug = errors.New("storage: slug taken by another term")

	// ErrTermExists is the kind of every *TermExistsError.
	ErrTermExists = errors.New("storage: term exists")

	// ErrForbidden is returned when the caller may not perform a change that only the store can judge,
	// such as attributing a record to another user without edit_others_posts.
	ErrForbidden = errors.New("storage: not allowed")

	// ErrNotImported is returned by Bulk.Link when the store holds the record or term to link and
	// the linking source did not import it: a record created here (through the API), or another
	// source's. The record keeps what it had, as the whole transaction fails: an import never
	// overwrites what it did not write. The importers report it; it never reaches the API.
	ErrNotImported = errors.New("storage: ID held by a record the import did not write")

	// ErrMirrored is returned by a write to a record an import keeps in line with its source
	// (Bulk.Link) while the store guards mirrored records (Options.GuardMirrored): the source is the
	// record's truth, and its next sync would overwrite the change.
	ErrMirrored = errors.New("storage: record mirrored from another site")
)

// Refused reports whether a write failed because the store refused the record for what it holds (the
// input rules of docs/API.md), rather than failing itself: an import reports such a record as a
// failure of that record and goes on, and stops on anything else (ErrNoSpace, ErrUnavailable, ctx).
func Refused(err error) bool {
	var te *TermExistsError
	return errors.As(err, &te) || slices.ContainsFunc([]error{ErrInvalid, ErrLinkedPost, ErrConflict,
		ErrWrongType, ErrNotImported, ErrDuplicateSlug, ErrForbidden, ErrTrashed, ErrCannotEditOthers},
		func(target error) bool { return errors.Is(err, target) })
}

// FieldError reports an invalid value of one request field. Its Kind is ErrInvalid unless stated
// otherwise (ErrLinkedPost).
type FieldError struct {
	Field  string
	Reason string
	Kind   error
	// Limit, when set, is the length the value exceeds (docs/API.md "Limits"): the API reports it with the
	// detail code rest_too_long.
	Limit int
}

func (e *FieldError) Error() string { return fmt.Sprintf("%s: %s", e.Field, e.Reason) }

// Unwrap lets errors.Is match the error's kind.
func (e *FieldError) Unwrap() error {
	if e.Kind == nil {
		return ErrInvalid
	}
	return e.Kind
}

func invalid(field, format string, args ...any) error {
	return &FieldError{Field: field, Reason: fmt.Sprintf(format, args...)}
}

// TermExistsError is returned when creating a term whose name is already used in its taxonomy (for
// categories: under the same parent).
type TermExistsError struct{ ID uint64 }

func (e *TermExistsError) Error() string {
	return fmt.Sprintf("storage: a term with this name already exists (id %d)", e.ID)
}

// Unwrap lets errors.Is match the error's kind, ErrTermExists.
func (e *TermExistsError) Unwrap() error { return ErrTermExists }

// Permission errors the store itself detects (the route-level checks are the handlers' job).
var (
	// ErrCannotEditOthers is returned when `author` names another user and the caller lacks
	// edit_others_posts.
	ErrCannotEditOthers = errors.New("storage: cannot attribute records to other users")
)

// Error is the error of an operation on one resource: Op and Resource say what was done to what, ID
// which record or term (0 when the operation names none), Err what went wrong. The kind of an Error is
// the sentinel of this file that errors.Is finds in Err, none for an unexpected failure; a client is
// answered from the kind, the Resource and the Op (handlers/errors.go holds that table), so an
// exported method that works on one resource returns its failures as an *Error.
type Error struct {
	Op       Op
	Resource DocKind
	ID       uint64
	Err      error
}

func (e *Error) Error() string {
	if e.ID == 0 {
		return fmt.Sprintf("storage: %s %s: %v", e.Op, e.Resource, e.Err)
	}
	return fmt.Sprintf("storage: %s %s %d: %v", e.Op, e.Resource, e.ID, e.Err)
}

// Unwrap lets errors.Is match the error's kind.
func (e *Error) Unwrap() error { return e.Err }

// Op is an operation an *Error names.
type Op string

// Operations on a resource.
const (
	OpGet       Op = "get"         // one resource, by ID
	OpGetBySlug Op = "get by slug" // one record, by its slug in a language
	OpList      Op = "list"        // a page of a collection (the HTTP layer's: the store has no pages)
	OpCreate    Op = "create"
	OpUpdate    Op = "update"
	OpTrash     Op = "trash"  // a record, into the trash
	OpDelete    Op = "delete" // a term, for good
)

// fail returns err, unless nil, as the error of op on resource r (id 0: none).
func fail(op Op, r DocKind, id uint64, err error) error {
	if err == nil {
		return nil
	}
	return &Error{Op: op, Resource: r, ID: id, Err: err}
}
