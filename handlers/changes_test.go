package handlers

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"go.uber.org/zap"

	"github.com/calendard/calendard/storage"
)

// waitHeldIndex holds every wait for the index inside WaitApplied until release is closed, saying so
// on entered, and then ends it as a change would.
type waitHeldIndex struct {
	Index
	entered chan struct{}
	release chan struct{}
}

func (x *waitHeldIndex) WaitApplied(ctx context.Context, seq uint64) error {
	x.entered <- struct{}{}
	<-x.release
	return nil // as when a change came
}

// A change-feed long poll checks its caller's credentials again once it has waited: a password
// revoked meanwhile answers 401, not the changes.
func TestLongPollChecksCredentialsAgain(t *testing.T) {
	hh, db := newTestHandler(t, Config{})
	ctx := context.Background()
	if _, err := db.CreateUser(ctx, storage.User{Login: "ed", Email: "ed@example.org", Role: storage.RoleEditor}); err != nil {
		t.Fatal(err)
	}
	pw, err := db.CreateAppPassword(ctx, "ed", "feed")
	if err != nil {
		t.Fatal(err)
	}
	head, err := db.ChangeHead(ctx)
	if err != nil {
		t.Fatal(err)
	}
	held := &waitHeldIndex{Index: hh.(*Handler).index, entered: make(chan struct{}, 4), release: make(chan struct{})}
	h := New(Deps{Config: hh.(*Handler).cfg, Store: db, Index: held, Log: zap.NewNop()})
	poll := func() *httptest.ResponseRecorder {
		r := httptest.NewRequest("GET", "/calendar/events/v1/changes?wait=30&since="+cursor(head).String(), nil)
		r.SetBasicAuth("ed", pw)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	answered := make(chan *httptest.ResponseRecorder, 1)
	go func() { answered <- poll() }()
	<-held.entered // the poll is held, its caller authenticated
	if err := db.RevokeAppPassword(ctx, "ed", "feed"); err != nil {
		t.Fatal(err)
	}
	close(held.release)
	if w := <-answered; w.Code != http.StatusUnauthorized {
		t.Errorf("a long poll whose password was revoked while it waited: %d %s", w.Code, w.Body)
	}
}
