package handlers

import (
	"context"
	"errors"
	"math"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/calendard/calendard/storage"
	"github.com/calendard/calendard/storage/task"
)

// Kinds of error that only the HTTP layer finds; storage's kinds are in storage/errors.go. Each is
// answered by its row of answers.
var (
	errNoRoute         = errors.New("handlers: no route")
	errTooLarge        = errors.New("handlers: request body too large")
	errCrossSite       = errors.New("handlers: cross-site write without preflight")
	errTooManyRequests = errors.New("handlers: too many requests")
	errInvalidJSON     = errors.New("handlers: invalid JSON body")
	errMissingParams   = errors.New("handlers: missing parameters")
	errNoNamespace     = errors.New("handlers: unknown namespace")
	errNotReady        = errors.New("handlers: index still loading")
	errRevisionPending = errors.New("handlers: revision not applied yet")
	// errInternal is a failure that whoever found it has logged already (a panic, an encoding failure).
	errInternal = errors.New("handlers: internal error")
)

// answer is what a client is told about an error (docs/API.md "Parameters and bodies", "Errors").
type answer struct {
	status int
	code   string
	// message is the envelope's message unless the error brings its own (a *detailed, a
	// *storage.FieldError); with param, it is the reason given for that parameter.
	message string
	// param makes the answer a rest_invalid_param naming this parameter: the key the resource was
	// looked up by.
	param string
	// anonymous, when set, is the status for anonymous callers: a refusal tells them to log in
	// (docs/API.md "Authentication and permissions").
	anonymous int
	// retryAfter, when positive, is sent as Retry-After, in seconds, unless the error brings its own.
	retryAfter int64
}

// answers is the one table from errors to what clients are told, as wtf's http/http.go has one map from
// error codes to statuses: every status and code of docs/API.md "Errors" is decided here. A row answers an error
// of its kind (errors.Is; nil: any kind) about its resource (0: any) in its operation ("": any), both
// taken from the *storage.Error the error carries; the first row that matches decides. Rows of no kind
// come last: they catch the failures of an operation that nothing expected, which are logged. An error
// no row matches is internal, logged, and answered as errInternal.
//
// Adding a kind is adding its row, as storage.ErrCompacted's for the change feed and
// storage.ErrNoSpace's for a full disk and storage.ErrUnavailable's for a store out of reach (etcd).
var answers = []struct {
	kind error
	res  storage.DocKind
	op   storage.Op
	answer
}{
	// Before routing and validation (docs/API.md "Responses", "Parameters and bodies").
	{errTooLarge, 0, "", answer{status: 413, code: "rest_request_too_large", message: "The request body is too large."}},
	{errCrossSite, 0, "", answer{status: 403, code: "rest_cross_site_request", message: "A page of another site may not write with a form, a beacon or a simple fetch: send a JSON body."}},
	{errTooManyRequests, 0, "", answer{status: 429, code: "rest_too_many_requests", message: "Too many requests. Please retry later."}},
	{&storage.AuthError{Code: storage.AuthInvalidUsername}, 0, "", answer{status: 401, code: "invalid_username", message: "Unknown username or malformed credentials."}},
	{&storage.AuthError{Code: storage.AuthInvalidEmail}, 0, "", answer{status: 401, code: "invalid_email", message: "Unknown email address."}},
	{&storage.AuthError{Code: storage.AuthIncorrectPassword}, 0, "", answer{status: 401, code: "incorrect_password", message: "The provided password is an invalid application password."}},
	{&storage.AuthError{Code: storage.AuthInvalidToken}, 0, "", answer{status: 401, code: "invalid_token", message: "The provided token is not a valid application password."}},
	{errNotReady, 0, "", answer{status: 503, code: "rest_not_ready", message: "The service is starting and is not ready to answer yet: retry after the delay given."}},
	{errRevisionPending, 0, "", answer{status: 503, code: "rest_revision_pending", retryAfter: revisionRetryAfter,
		message: "This server has not yet applied the revision X-Calendar-Min-Revision asks for: retry after the delay given."}},
	{errNoRoute, 0, "", answer{status: 404, code: "rest_no_route", message: "No route was found matching the URL and request method."}},
	{errInvalidJSON, 0, "", answer{status: 400, code: "rest_invalid_json"}},
	{errMissingParams, 0, "", answer{status: 400, code: "rest_missing_callback_param"}},
	// The kind of every *storage.FieldError and of the handlers' own validation failures.
	{storage.ErrInvalid, 0, "", answer{status: 400, code: "rest_invalid_param"}},
	{errNoNamespace, 0, "", answer{status: 404, code: "rest_invalid_namespace", message: "The specified namespace could not be found."}},

	// Permissions (docs/API.md "Authentication and permissions").
	{storage.ErrForbidden, storage.DocEvent, storage.OpGet, answer{status: 403, code: "event-not-accessible", message: "You are not allowed to read this event."}},
	{storage.ErrForbidden, storage.DocVenue, storage.OpGet, answer{status: 403, code: "venue-not-accessible", message: "You are not allowed to read this venue."}},
	{storage.ErrForbidden, storage.DocOrganizer, storage.OpGet, answer{status: 403, code: "organizer-not-accessible", message: "You are not allowed to read this organizer."}},
	{storage.ErrForbidden, 0, "", answer{status: 403, anonymous: 401, code: "rest_forbidden", message: "Sorry, you are not allowed to do that."}},
	{storage.ErrCannotEditOthers, 0, "", answer{status: 403, code: "rest_cannot_edit_others", message: "Sorry, you are not allowed to create records as this user."}},

	// List pages past the end (docs/API.md "Lists").
	{storage.ErrNotFound, storage.DocEvent, storage.OpList, answer{status: 404, code: "event-archive-page-not-found", message: "The requested page does not exist."}},
	{storage.ErrNotFound, storage.DocVenue, storage.OpList, answer{status: 404, code: "venue-archive-page-not-found", message: "The requested page does not exist."}},
	{storage.ErrNotFound, storage.DocOrganizer, storage.OpList, answer{status: 404, code: "organizer-archive-page-not-found", message: "The requested page does not exist."}},
	{storage.ErrNotFound, storage.DocCategory, storage.OpList, answer{status: 404, code: "term-archive-page-not-found", message: "The requested page does not exist."}},
	{storage.ErrNotFound, storage.DocTag, storage.OpList, answer{status: 404, code: "term-archive-page-not-found", message: "The requested page does not exist."}},

	// Lookups by path (docs/API.md "Events", "Venues and organizers", "Categories and tags", "Routes"). Events tell an unknown ID (404) from another record's
	// (400); venue and organizer lookups fold the two (storage), and an unknown venue, organizer or
	// term is a parameter failure.
	{storage.ErrNotFound, storage.DocEvent, storage.OpGet, answer{status: 404, code: "rest-event-not-found", message: "The event does not exist."}},
	{storage.ErrWrongType, storage.DocEvent, storage.OpGet, answer{status: 400, code: "rest-invalid-event-id", message: "The ID is not the ID of an event."}},
	{storage.ErrNotFound, storage.DocEvent, storage.OpGetBySlug, answer{status: 400, code: "rest_invalid_param", param: "slug", message: "No event has this slug."}},
	{storage.ErrNotFound, storage.DocVenue, storage.OpGet, answer{status: 400, code: "rest_invalid_param", param: "id", message: "Invalid venue ID."}},
	{storage.ErrNotFound, storage.DocVenue, storage.OpGetBySlug, answer{status: 400, code: "rest_invalid_param", param: "slug", message: "No venue has this slug."}},
	{storage.ErrNotFound, storage.DocOrganizer, storage.OpGet, answer{status: 400, code: "rest_invalid_param", param: "id", message: "Invalid organizer ID."}},
	{storage.ErrNotFound, storage.DocOrganizer, storage.OpGetBySlug, answer{status: 400, code: "rest_invalid_param", param: "slug", message: "No organizer has this slug."}},
	// Every operation of a term route: another request may delete the term after the handler found it.
	{storage.ErrNotFound, storage.DocCategory, "", answer{status: 400, code: "rest_invalid_param", param: "id", message: "Term does not exist."}},
	{storage.ErrNotFound, storage.DocTag, "", answer{status: 400, code: "rest_invalid_param", param: "id", message: "Term does not exist."}},

	// Trash (docs/API.md "Events", "Venues and organizers", "Statuses"). The store checks inside the write, so a record trashed by another
	// request since the handler read it gets the 410 too.
	{storage.ErrTrashed, storage.DocEvent, storage.OpGet, answer{status: 403, code: "event-no-longer-available", message: "The event is no longer available."}},
	{storage.ErrTrashed, storage.DocEvent, storage.OpTrash, answer{status: 410, code: "event-is-in-trash", message: "The event is already in the trash."}},
	{storage.ErrTrashed, storage.DocVenue, storage.OpTrash, answer{status: 410, code: "venue-is-in-trash", message: "The venue is already in the trash."}},
	{storage.ErrTrashed, storage.DocOrganizer, storage.OpTrash, answer{status: 410, code: "organizer-is-in-trash", message: "The organizer is already in the trash."}},

	// Write rules (docs/API.md "Languages", "Categories and tags", "Event fields").
	{storage.ErrLinkedPost, 0, "", answer{status: 400, code: "invalid-linked-post-id"}},
	{storage.ErrConflict, 0, "", answer{status: 409, code: "translation-already-exists", message: "The translation group already has a record in this language."}},
	{storage.ErrTermExists, 0, "", answer{status: 400, code: "term_exists", message: "A term with the name provided already exists."}},
	{storage.ErrDuplicateSlug, 0, "", answer{status: 400, code: "duplicate_term_slug", message: "The slug is already used by another term."}},

	// A record a mirror keeps in line with its site (calendard import tec, CALENDAR_MIRROR_FROM): the
	// site is its truth and the next sync would undo the change. 409, not 403: no permission would
	// allow it, the record's state does not.
	{storage.ErrMirrored, 0, "", answer{status: 409, code: "rest_mirrored_record", message: "This record is mirrored from another site, its source of truth: change it there, and the next sync brings the change here."}},

	// A change-feed cursor older than what the trimmed change log holds: list again (changes.go).
	{storage.ErrCompacted, 0, "", answer{status: 410, code: "rest_changes_expired", message: "The cursor is outside the changes this service keeps: list the records again, then follow from the new cursor."}},

	// A full disk: nothing of the write was kept, and it can succeed once space is freed.
	{storage.ErrNoSpace, 0, "", answer{status: 507, code: "rest_insufficient_storage", message: "The server's disk is full: the write was not saved. Retry once space has been freed."}},

	// The store's cluster (etcd, in cluster mode) did not answer in time or cannot serve, and the same
	// request can succeed once it is back. A write whose commit was sent and whose answer was lost may
	// have been applied, and nothing tells which: the message says so rather than "nothing was saved".
	// Retry-After is a request timeout of the store's, the time a retry is likely to need before it
	// knows.
	{storage.ErrUnavailable, 0, "", answer{status: 503, code: "rest_store_unavailable", retryAfter: storeRetryAfter,
		message: "The store did not answer in time: a write may or may not have been saved. Read the record back before sending it again, after the delay given."}},
	// A write larger than the store takes at once (cluster mode: etcd's limits per transaction, which
	// a long series reaches). Retrying does not help: the client makes it smaller (a shorter series),
	// or the operator raises the limits.
	{storage.ErrTooLarge, 0, "", answer{status: 400, code: "rest_write_too_large",
		message: "This write changes more records than the store takes at once: nothing was saved. Make it smaller, such as a series with fewer occurrences."}},

	// Out of time (docs/API.md "Limits"). A request whose client went away ends like one out of time: the
	// service did nothing wrong.
	{context.DeadlineExceeded, 0, "", answer{status: 503, code: "rest_timeout", message: "The request took too long to process."}},
	{context.Canceled, 0, "", answer{status: 503, code: "rest_timeout", message: "The request took too long to process."}},

	{errInternal, 0, "", answer{status: 500, code: "rest_internal_error", message: "An internal error occurred."}},

	// Unexpected failures of record writes name what failed, not why (docs/API.md "Errors"). An event create has
	// no code of its own: it fails as errInternal.
	{nil, storage.DocVenue, storage.OpCreate, answer{status: 400, code: "could-not-create-venue", message: "The record could not be saved."}},
	{nil, storage.DocOrganizer, storage.OpCreate, answer{status: 400, code: "could-not-create-organizer", message: "The record could not be saved."}},
	{nil, storage.DocEvent, storage.OpUpdate, answer{status: 500, code: "could-not-update-event", message: "The record could not be saved."}},
	{nil, storage.DocVenue, storage.OpUpdate, answer{status: 500, code: "could-not-update-venue", message: "The record could not be saved."}},
	{nil, storage.DocOrganizer, storage.OpUpdate, answer{status: 500, code: "could-not-update-organizer", message: "The record could not be saved."}},
	{nil, storage.DocEvent, storage.OpTrash, answer{status: 500, code: "could-not-delete-event", message: "The record could not be saved."}},
	{nil, storage.DocVenue, storage.OpTrash, answer{status: 500, code: "could-not-delete-venue", message: "The record could not be saved."}},
	{nil, storage.DocOrganizer, storage.OpTrash, answer{status: 500, code: "could-not-delete-organizer", message: "The record could not be saved."}},
}

// answerFor finds err's row in answers; unexpected reports that no row of a kind matched, so that err
// must be logged.
func answerFor(err error) (a answer, unexpected bool) {
	var se *storage.Error
	errors.As(err, &se)
	for _, row := range answers {
		switch {
		case row.kind != nil && !errors.Is(err, row.kind):
		case row.res != 0 && (se == nil || se.Resource != row.res):
		case row.op != "" && (se == nil || se.Op != row.op):
		default:
			return row.answer, row.kind == nil
		}
	}
	a, _ = answerFor(errInternal)
	return a, true
}

// detailed is an error of kind that brings its own message (unless empty), data members or Retry-After
// to the envelope; the table still decides its status and code.
type detailed struct {
	kind    error
	message string
	// data holds the envelope's data members besides status, in order.
	data obj
	// retryAfter, when positive, is sent as Retry-After, in seconds.
	retryAfter int64
}

func (e *detailed) Error() string {
	if e.message == "" {
		return e.kind.Error()
	}
	return e.kind.Error() + ": " + e.message
}

func (e *detailed) Unwrap() error { return e.kind }

// envelope is an error as written: {"code","message","data":{"status",…}} and Retry-After.
type envelope struct {
	status     int
	code       string
	message    string
	data       obj
	retryAfter int64
}

// toEnvelope answers err as answers says, with the message and data the error brings. Unexpected
// errors are logged here, once, and their message stays the generic one.
func (h *Handler) toEnvelope(rq *request, err error) envelope {
	a, unexpected := answerFor(err)
	switch {
	case unexpected:
		h.log.Error("request failed", zap.String("request_id", rq.id), zap.Error(err))
	case errors.Is(err, storage.ErrUnavailable):
		// The client is told to retry; the operator needs the cause (etcd out of reach, a write
		// that kept conflicting, a node's copy that did not receive its commit in time).
		h.log.Warn("store unavailable", zap.String("request_id", rq.id), zap.Error(err))
	}
	e := envelope{status: a.status, code: a.code, message: a.message, retryAfter: a.retryAfter}
	if a.anonymous != 0 && rq.actor.Anonymous() {
		e.status = a.anonymous
	}
	var d *detailed
	var fe *storage.FieldError
	var te *storage.TermExistsError
	switch {
	case errors.As(err, &d):
		if d.message != "" {
			e.message = d.message
		}
		e.data, e.retryAfter = d.data, d.retryAfter
	case a.param != "":
		e.message, e.data = problemsData([]problem{{name: a.param, code: "rest_invalid_param", message: a.message}})
	case errors.As(err, &fe) && a.code == "rest_invalid_param":
		e.message, e.data = problemsData([]problem{{name: fe.Field, code: "rest_invalid_param", message: fe.Reason}})
	case errors.As(err, &fe):
		// invalid-linked-post-id: the reason is the message, and the field is named (docs/API.md "Event fields").
		e.message, e.data = fe.Reason, obj{{"params", obj{{fe.Field, fe.Reason}}}}
	case errors.As(err, &te):
		e.data = obj{{"term_id", te.ID}}
	}
	return e
}

// storeRetryAfter is the Retry-After of rest_store_unavailable, in seconds: etcdkv's request timeout.
const storeRetryAfter = 5

// Bounds of a rest_not_ready answer's Retry-After, in seconds: soon enough to notice the end of a
// short load, rarely enough not to add load to a long one.
const (
	minNotReadyRetry = 1
	maxNotReadyRetry = 30
)

// notReady is the answer of a server whose index is loading (docs/API.md "Errors"): Retry-After is the time the
// load's progress so far says is left.
func notReady(p task.Progress, now time.Time) error {
	return &detailed{kind: errNotReady,
		retryAfter: min(max(int64(math.Ceil(p.Remaining(now).Seconds())), minNotReadyRetry), maxNotReadyRetry)}
}

// problem is one invalid parameter.
type problem struct {
	name    string
	code    string // rest_invalid_type, rest_not_in_enum, rest_too_long, rest_invalid_param
	message string
	// err, when set, says the parameter could not be checked at all (a store read failed or the
	// request ran out of time): that is not the caller's fault, so validate answers with err, mapped
	// like any handler error, instead of a 400 naming the parameter.
	err error
}

// failed is the problem of a parameter whose check itself failed.
func failed(err error) *problem { return &problem{err: err} }

// lookupProblem is the problem of a parameter naming a record the store could not return: message
// when the record does not exist (or is of another type), the store's failure otherwise.
func lookupProblem(err error, message string) *problem {
	if errors.Is(err, storage.ErrNotFound) || errors.Is(err, storage.ErrWrongType) {
		return bad(message)
	}
	return failed(err)
}

// problemsData is the message and data of rest_invalid_param for problems in parameter-table order
// (docs/API.md "Parameters and bodies").
func problemsData(problems []problem) (string, obj) {
	names := make([]string, len(problems))
	params, details := obj{}, obj{}
	for i, p := range problems {
		names[i] = p.name
		params = params.set(p.name, p.message)
		if p.code != "" {
			details = details.set(p.name, obj{{"code", p.code}, {"message", p.message}, {"data", nil}})
		}
	}
	return "Invalid parameter(s): " + strings.Join(names, ", "), obj{{"params", params}, {"details", details}}
}

// invalidParams is the validation failure of problems: 400 rest_invalid_param.
func invalidParams(problems []problem) error {
	message, data := problemsData(problems)
	return &detailed{kind: storage.ErrInvalid, message: message, data: data}
}

func invalidParam(name, code, message string) error {
	return invalidParams([]problem{{name: name, code: code, message: message}})
}

func missingParams(names []string) error {
	return &detailed{kind: errMissingParams, message: "Missing parameter(s): " + strings.Join(names, ", "),
		data: obj{{"params", names}}}
}
