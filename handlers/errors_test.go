package handlers

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/calendard/calendard/handlers/input"
	"github.com/calendard/calendard/storage"
	"github.com/calendard/calendard/storage/task"
)

// failing is the error of op on resource r failing with err, as the store returns it.
func failing(op storage.Op, r storage.DocKind, err error) error {
	return &storage.Error{Op: op, Resource: r, ID: 7, Err: err}
}

// TestErrorEnvelopes writes errors as a handler returns them and checks what the client gets: status,
// body, Retry-After, and whether the error was logged (only failures nothing expected are).
func TestErrorEnvelopes(t *testing.T) {
	disk := errors.New("disk on fire")
	for _, tc := range []struct {
		name       string
		err        error
		anonymous  bool
		wantStatus int
		wantBody   string
		wantRetry  string
		wantLogged bool
	}{
		{name: "event by ID", err: failing(storage.OpGet, storage.DocEvent, storage.ErrNotFound), wantStatus: 404,
			wantBody: `{"code":"rest-event-not-found","message":"The event does not exist.","data":{"status":404}}`},
		{name: "wrapped again", err: fmt.Errorf("find: %w", failing(storage.OpGet, storage.DocEvent, storage.ErrNotFound)), wantStatus: 404,
			wantBody: `{"code":"rest-event-not-found","message":"The event does not exist.","data":{"status":404}}`},
		{name: "event ID of a venue", err: failing(storage.OpGet, storage.DocEvent, storage.ErrWrongType), wantStatus: 400,
			wantBody: `{"code":"rest-invalid-event-id","message":"The ID is not the ID of an event.","data":{"status":400}}`},
		{name: "event by slug", err: failing(storage.OpGetBySlug, storage.DocEvent, storage.ErrNotFound), wantStatus: 400,
			wantBody: `{"code":"rest_invalid_param","message":"Invalid parameter(s): slug","data":{"status":400,"params":{"slug":"No event has this slug."},"details":{"slug":{"code":"rest_invalid_param","message":"No event has this slug.","data":null}}}}`},
		{name: "venue by ID", err: failing(storage.OpGet, storage.DocVenue, storage.ErrNotFound), wantStatus: 400,
			wantBody: `{"code":"rest_invalid_param","message":"Invalid parameter(s): id","data":{"status":400,"params":{"id":"Invalid venue ID."},"details":{"id":{"code":"rest_invalid_param","message":"Invalid venue ID.","data":null}}}}`},
		{name: "organizer by slug", err: failing(storage.OpGetBySlug, storage.DocOrganizer, storage.ErrNotFound), wantStatus: 400,
			wantBody: `{"code":"rest_invalid_param","message":"Invalid parameter(s): slug","data":{"status":400,"params":{"slug":"No organizer has this slug."},"details":{"slug":{"code":"rest_invalid_param","message":"No organizer has this slug.","data":null}}}}`},
		{name: "term deleted meanwhile", err: failing(storage.OpUpdate, storage.DocCategory, storage.ErrNotFound), wantStatus: 400,
			wantBody: `{"code":"rest_invalid_param","message":"Invalid parameter(s): id","data":{"status":400,"params":{"id":"Term does not exist."},"details":{"id":{"code":"rest_invalid_param","message":"Term does not exist.","data":null}}}}`},
		{name: "tag page past the end", err: failing(storage.OpList, storage.DocTag, storage.ErrNotFound), wantStatus: 404,
			wantBody: `{"code":"term-archive-page-not-found","message":"The requested page does not exist.","data":{"status":404}}`},
		{name: "trashed event read", err: failing(storage.OpGet, storage.DocEvent, storage.ErrTrashed), wantStatus: 403,
			wantBody: `{"code":"event-no-longer-available","message":"The event is no longer available.","data":{"status":403}}`},
		{name: "venue trashed twice", err: failing(storage.OpTrash, storage.DocVenue, storage.ErrTrashed), wantStatus: 410,
			wantBody: `{"code":"venue-is-in-trash","message":"The venue is already in the trash.","data":{"status":410}}`},
		{name: "unreadable organizer, anonymous", err: failing(storage.OpGet, storage.DocOrganizer, storage.ErrForbidden), anonymous: true, wantStatus: 403,
			wantBody: `{"code":"organizer-not-accessible","message":"You are not allowed to read this organizer.","data":{"status":403}}`},
		{name: "refused, anonymous", err: storage.ErrForbidden, anonymous: true, wantStatus: 401,
			wantBody: `{"code":"rest_forbidden","message":"Sorry, you are not allowed to do that.","data":{"status":401}}`},
		{name: "refused", err: storage.ErrForbidden, wantStatus: 403,
			wantBody: `{"code":"rest_forbidden","message":"Sorry, you are not allowed to do that.","data":{"status":403}}`},
		{name: "refused by the store", err: failing(storage.OpUpdate, storage.DocEvent, storage.ErrForbidden), wantStatus: 403,
			wantBody: `{"code":"rest_forbidden","message":"Sorry, you are not allowed to do that.","data":{"status":403}}`},
		{name: "another author", err: failing(storage.OpCreate, storage.DocEvent, storage.ErrCannotEditOthers), wantStatus: 403,
			wantBody: `{"code":"rest_cannot_edit_others","message":"Sorry, you are not allowed to create records as this user.","data":{"status":403}}`},
		{name: "field", err: failing(storage.OpUpdate, storage.DocVenue, &storage.FieldError{Field: "author", Reason: "no user has ID 9"}), wantStatus: 400,
			wantBody: `{"code":"rest_invalid_param","message":"Invalid parameter(s): author","data":{"status":400,"params":{"author":"no user has ID 9"},"details":{"author":{"code":"rest_invalid_param","message":"no user has ID 9","data":null}}}}`},
		{name: "linked post", err: failing(storage.OpCreate, storage.DocEvent, &storage.FieldError{Field: "venue", Reason: "venue 3 is in the trash", Kind: storage.ErrLinkedPost}), wantStatus: 400,
			wantBody: `{"code":"invalid-linked-post-id","message":"venue 3 is in the trash","data":{"status":400,"params":{"venue":"venue 3 is in the trash"}}}`},
		{name: "term exists", err: failing(storage.OpCreate, storage.DocTag, &storage.TermExistsError{ID: 4}), wantStatus: 400,
			wantBody: `{"code":"term_exists","message":"A term with the name provided already exists.","data":{"status":400,"term_id":4}}`},
		{name: "translation exists", err: failing(storage.OpCreate, storage.DocVenue, storage.ErrConflict), wantStatus: 409,
			wantBody: `{"code":"translation-already-exists","message":"The translation group already has a record in this language.","data":{"status":409}}`},
		{name: "slug of another term", err: failing(storage.OpUpdate, storage.DocTag, storage.ErrDuplicateSlug), wantStatus: 400,
			wantBody: `{"code":"duplicate_term_slug","message":"The slug is already used by another term.","data":{"status":400}}`},
		{name: "write out of time", err: failing(storage.OpUpdate, storage.DocVenue, context.DeadlineExceeded), wantStatus: 503,
			wantBody: `{"code":"rest_timeout","message":"The request took too long to process.","data":{"status":503}}`},
		{name: "client gone", err: context.Canceled, wantStatus: 503,
			wantBody: `{"code":"rest_timeout","message":"The request took too long to process.","data":{"status":503}}`},
		{name: "venue create failed", err: failing(storage.OpCreate, storage.DocVenue, disk), wantStatus: 400, wantLogged: true,
			wantBody: `{"code":"could-not-create-venue","message":"The record could not be saved.","data":{"status":400}}`},
		{name: "organizer update failed", err: failing(storage.OpUpdate, storage.DocOrganizer, disk), wantStatus: 500, wantLogged: true,
			wantBody: `{"code":"could-not-update-organizer","message":"The record could not be saved.","data":{"status":500}}`},
		{name: "event trash failed", err: failing(storage.OpTrash, storage.DocEvent, disk), wantStatus: 500, wantLogged: true,
			wantBody: `{"code":"could-not-delete-event","message":"The record could not be saved.","data":{"status":500}}`},
		{name: "event vanished during its update", err: failing(storage.OpUpdate, storage.DocEvent, storage.ErrNotFound), wantStatus: 500, wantLogged: true,
			wantBody: `{"code":"could-not-update-event","message":"The record could not be saved.","data":{"status":500}}`},
		{name: "event create failed", err: failing(storage.OpCreate, storage.DocEvent, disk), wantStatus: 500, wantLogged: true,
			wantBody: `{"code":"rest_internal_error","message":"An internal error occurred.","data":{"status":500}}`},
		{name: "not found, of nothing", err: storage.ErrNotFound, wantStatus: 500, wantLogged: true,
			wantBody: `{"code":"rest_internal_error","message":"An internal error occurred.","data":{"status":500}}`},
		{name: "unknown", err: disk, wantStatus: 500, wantLogged: true,
			wantBody: `{"code":"rest_internal_error","message":"An internal error occurred.","data":{"status":500}}`},
		{name: "logged already", err: errInternal, wantStatus: 500,
			wantBody: `{"code":"rest_internal_error","message":"An internal error occurred.","data":{"status":500}}`},
		{name: "bad password", err: &storage.AuthError{Code: storage.AuthIncorrectPassword}, wantStatus: 401,
			wantBody: `{"code":"incorrect_password","message":"The provided password is an invalid application password.","data":{"status":401}}`},
		{name: "bad token", err: &storage.AuthError{Code: storage.AuthInvalidToken}, wantStatus: 401,
			wantBody: `{"code":"invalid_token","message":"The provided token is not a valid application password.","data":{"status":401}}`},
		{name: "no route", err: errNoRoute, wantStatus: 404,
			wantBody: `{"code":"rest_no_route","message":"No route was found matching the URL and request method.","data":{"status":404}}`},
		{name: "too large", err: errTooLarge, wantStatus: 413,
			wantBody: `{"code":"rest_request_too_large","message":"The request body is too large.","data":{"status":413}}`},
		{name: "cross-site", err: errCrossSite, wantStatus: 403,
			wantBody: `{"code":"rest_cross_site_request","message":"A page of another site may not write with a form, a beacon or a simple fetch: send a JSON body.","data":{"status":403}}`},
		{name: "rate limited", err: tooManyRequests(1500 * time.Millisecond), wantStatus: 429, wantRetry: "2",
			wantBody: `{"code":"rest_too_many_requests","message":"Too many requests. Please retry later.","data":{"status":429}}`},
		{name: "a write limit reached", err: limitReached(90*time.Second, "You have reached the limit."), wantStatus: 429, wantRetry: "90",
			wantBody: `{"code":"rest_too_many_requests","message":"You have reached the limit.","data":{"status":429}}`},
		{name: "loading", err: notReady(task.Progress{}, time.Now()), wantStatus: 503, wantRetry: "1",
			wantBody: `{"code":"rest_not_ready","message":"The service is starting and is not ready to answer yet: retry after the delay given.","data":{"status":503}}`},
		{name: "bad JSON", err: invalidJSON("Invalid JSON body passed.", &input.JSONError{Code: 4, Message: "Syntax error"}), wantStatus: 400,
			wantBody: `{"code":"rest_invalid_json","message":"Invalid JSON body passed.","data":{"status":400,"json_error_code":4,"json_error_message":"Syntax error"}}`},
		{name: "missing", err: missingParams([]string{"title", "start_date"}), wantStatus: 400,
			wantBody: `{"code":"rest_missing_callback_param","message":"Missing parameter(s): title, start_date","data":{"status":400,"params":["title","start_date"]}}`},
		{name: "other namespace", err: errNoNamespace, wantStatus: 404,
			wantBody: `{"code":"rest_invalid_namespace","message":"The specified namespace could not be found.","data":{"status":404}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			core, logs := observer.New(zap.ErrorLevel)
			h := &Handler{log: zap.New(core)}
			rq := &request{r: httptest.NewRequest("GET", "/", nil), origin: "http://example.com"}
			if !tc.anonymous {
				rq.actor = storage.Actor{UserID: 1, Role: storage.RoleEditor}
			}
			w := httptest.NewRecorder()
			h.writeError(w, rq, tc.err)
			if w.Code != tc.wantStatus || w.Body.String() != tc.wantBody {
				t.Errorf("got %d %s\nwant %d %s", w.Code, w.Body, tc.wantStatus, tc.wantBody)
			}
			if got := w.Header().Get("Retry-After"); got != tc.wantRetry {
				t.Errorf("Retry-After %q, want %q", got, tc.wantRetry)
			}
			if got := logs.FilterMessage("request failed").Len() == 1; got != tc.wantLogged {
				t.Errorf("logged: %v, want %v", got, tc.wantLogged)
			}
		})
	}
}

// TestErrorTableOrder fails when a row of answers can never decide, because a row before it catches
// every error it would answer.
func TestErrorTableOrder(t *testing.T) {
	for i, row := range answers {
		err := row.kind
		if err == nil {
			err = errors.New("unexpected")
		}
		if row.res != 0 || row.op != "" {
			err = &storage.Error{Op: row.op, Resource: row.res, Err: err}
		}
		if got, _ := answerFor(err); got != row.answer {
			t.Errorf("row %d (%v, %v, %q): answered %+v, want %+v", i, row.kind, row.res, row.op, got, row.answer)
		}
	}
}
