package handlers

import (
	"context"
	"errors"
	"math"
	"net/http"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/calendard/calendard/index"
	"github.com/calendard/calendard/storage"
)

// apiError is an error with its place in the contract's envelope: {"code","message","data":{"status",…}}.
type apiError struct {
	status  int
	code    string
	message string
	// data holds the envelope's data members besides status, in order.
	data obj
	// retryAfter, when positive, is sent as Retry-After, in seconds.
	retryAfter int64
}

func (e *apiError) Error() string { return e.code + ": " + e.message }

func newError(status int, code, message string) *apiError {
	return &apiError{status: status, code: code, message: message}
}

var (
	errNoRoute      = newError(http.StatusNotFound, "rest_no_route", "No route was found matching the URL and request method.")
	errTooLarge     = newError(http.StatusRequestEntityTooLarge, "rest_request_too_large", "The request body is too large.")
	errCrossSite    = newError(http.StatusForbidden, "rest_cross_site_request", "A page of another site may not write with a form, a beacon or a simple fetch: send a JSON body.")
	errTimeout      = newError(http.StatusServiceUnavailable, "rest_timeout", "The request took too long to process.")
	errInternal     = newError(http.StatusInternalServerError, "rest_internal_error", "An internal error occurred.")
	errCannotEdit   = newError(http.StatusForbidden, "rest_cannot_edit_others", "Sorry, you are not allowed to create records as this user.")
	errTranslation  = newError(http.StatusConflict, "translation-already-exists", "The translation group already has a record in this language.")
	errDuplicateTag = newError(http.StatusBadRequest, "duplicate_term_slug", "The slug is already used by another term.")
)

// Bounds of a rest_not_ready answer's Retry-After, in seconds: soon enough to notice the end of a
// short load, rarely enough not to add load to a long one.
const (
	minNotReadyRetry = 1
	maxNotReadyRetry = 30
)

// notReady is the answer of a server whose index is loading (CONTRACT 9): Retry-After is the time the
// load's progress so far says is left.
func notReady(p index.Progress, now time.Time) *apiError {
	e := newError(http.StatusServiceUnavailable, "rest_not_ready", "The service is starting and is not ready to answer yet: retry after the delay given.")
	e.retryAfter = min(max(int64(math.Ceil(p.Remaining(now).Seconds())), minNotReadyRetry), maxNotReadyRetry)
	return e
}

// forbidden is the route-level permission failure: 401 for anonymous callers, 403 for others (CONTRACT 7.6).
func forbidden(rq *request) *apiError {
	if rq.actor.Anonymous() {
		return newError(http.StatusUnauthorized, "rest_forbidden", "Sorry, you are not allowed to do that.")
	}
	return newError(http.StatusForbidden, "rest_forbidden", "Sorry, you are not allowed to do that.")
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

// invalidParams builds 400 rest_invalid_param from problems in parameter-table order (CONTRACT 2.6).
func invalidParams(problems []problem) *apiError {
	names := make([]string, len(problems))
	params, details := obj{}, obj{}
	for i, p := range problems {
		names[i] = p.name
		params = params.set(p.name, p.message)
		if p.code != "" {
			details = details.set(p.name, obj{{"code", p.code}, {"message", p.message}, {"data", nil}})
		}
	}
	e := newError(http.StatusBadRequest, "rest_invalid_param", "Invalid parameter(s): "+strings.Join(names, ", "))
	e.data = obj{{"params", params}, {"details", details}}
	return e
}

func invalidParam(name, code, message string) *apiError {
	return invalidParams([]problem{{name: name, code: code, message: message}})
}

func missingParams(names []string) *apiError {
	e := newError(http.StatusBadRequest, "rest_missing_callback_param", "Missing parameter(s): "+strings.Join(names, ", "))
	e.data = obj{{"params", names}}
	return e
}

// resource names the codes a record type answers with (CONTRACT 9).
type resource struct {
	name           string // event, venue, organizer
	notAccessible  string
	inTrash        string
	couldNotCreate string
	couldNotUpdate string
	couldNotDelete string
}

var (
	eventRes = &resource{"event", "event-not-accessible", "event-is-in-trash", "could-not-create-event",
		"could-not-update-event", "could-not-delete-event"}
	venueRes = &resource{"venue", "venue-not-accessible", "venue-is-in-trash", "could-not-create-venue",
		"could-not-update-venue", "could-not-delete-venue"}
	organizerRes = &resource{"organizer", "organizer-not-accessible", "organizer-is-in-trash",
		"could-not-create-organizer", "could-not-update-organizer", "could-not-delete-organizer"}
)

// trashed is the answer to a DELETE of a record already in the trash. The store checks, inside the
// write, so a record trashed by another request since the handler read it gets it too.
func (r *resource) trashed() *apiError {
	return newError(http.StatusGone, r.inTrash, "The "+r.name+" is already in the trash.")
}

// toAPIError is the one mapping from errors to the contract's envelope. Errors it does not know are
// internal: logged here, once, and answered with a generic 500.
func (h *Handler) toAPIError(rq *request, err error) *apiError {
	var ae *apiError
	var fe *storage.FieldError
	var te *storage.TermExistsError
	switch {
	case errors.As(err, &ae):
		return ae
	case errors.As(err, &fe) && errors.Is(err, storage.ErrLinkedPost):
		e := newError(http.StatusBadRequest, "invalid-linked-post-id", fe.Reason)
		e.data = obj{{"params", obj{{fe.Field, fe.Reason}}}}
		return e
	case errors.As(err, &fe):
		return invalidParam(fe.Field, "rest_invalid_param", fe.Reason)
	case errors.As(err, &te):
		e := newError(http.StatusBadRequest, "term_exists", "A term with the name provided already exists.")
		e.data = obj{{"term_id", te.ID}}
		return e
	case errors.Is(err, storage.ErrCannotEditOthers):
		return errCannotEdit
	case errors.Is(err, storage.ErrConflict):
		return errTranslation
	case errors.Is(err, storage.ErrDuplicateSlug):
		return errDuplicateTag
	case errors.Is(err, storage.ErrForbidden):
		return forbidden(rq)
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled):
		// A request whose client went away ends like one out of time: the service did nothing wrong.
		return errTimeout
	}
	h.log.Error("request failed", zap.String("request_id", rq.id), zap.Error(err))
	return errInternal
}

// storageFailure maps an unexpected error of a write to the resource's code (CONTRACT 9): the
// envelope names what failed without exposing why.
func (h *Handler) storageFailure(rq *request, err error, code string, status int) error {
	ae := h.toAPIError(rq, err)
	if ae != errInternal {
		return ae
	}
	return newError(status, code, "The record could not be saved.")
}
