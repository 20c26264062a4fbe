package storage

import (
	"encoding/base64"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestWebhooks(t *testing.T) {
	db := mustOpenDB(t)
	if _, err := db.CreateUser(ctx, User{Login: "ed", Email: "ed@example.org", Role: RoleEditor}); err != nil {
		t.Fatal(err)
	}
	mustCreateEvent(t, db, admin, newEvent(t, "before"))
	head, _ := db.ChangeHead(ctx)

	if _, err := db.CreateWebhook(ctx, Webhook{URL: "https://a.example/"}, "nobody"); !errors.Is(err, ErrNotFound) {
		t.Errorf("create as an unknown login: %v, want ErrNotFound", err)
	}
	w, err := db.CreateWebhook(ctx, Webhook{URL: "https://a.example/", Kinds: []DocKind{DocEvent}}, "ed")
	if err != nil {
		t.Fatal(err)
	}
	raw, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(w.Secret, WebhookSecretPrefix))
	if !strings.HasPrefix(w.Secret, WebhookSecretPrefix) || err != nil || len(raw) != 32 {
		t.Errorf("secret %q: want whsec_ and 32 bytes in base64 (%v)", w.Secret, err)
	}
	if w.Cursor != head || w.UserID == 0 {
		t.Errorf("created cursor %d user %d; want the head %d and ed's ID", w.Cursor, w.UserID, head)
	}
	if !w.Wants(DocEvent) || w.Wants(DocVenue) {
		t.Errorf("Wants: an event-only subscription must want events only")
	}

	// A rotation keeps the old secret signing beside the new one for a day, then alone the new one.
	old := w.Secret
	r, err := db.RotateWebhookSecret(ctx, w.ID)
	if err != nil {
		t.Fatal(err)
	}
	now := db.Now()
	if got := r.Signs(now); len(got) != 2 || got[0] == old || got[1] != old {
		t.Errorf("signing secrets after rotation: %q; want the new one, then %q", got, old)
	}
	if got := r.Signs(now.Add(WebhookSecretOverlap + time.Second)); len(got) != 1 || got[0] != r.Secret {
		t.Errorf("signing secrets a day after rotation: %q; want the new one only", got)
	}

	if _, err := db.UpdateWebhook(ctx, w.ID, func(w *Webhook) error { w.Disabled, w.Reason = true, "test"; return nil }); err != nil {
		t.Fatal(err)
	}
	got, err := db.Webhook(ctx, w.ID)
	if err != nil || !got.Disabled || got.Reason != "test" || got.Secret != r.Secret {
		t.Errorf("after disabling: %+v, %v", got, err)
	}
	list, err := db.Webhooks(ctx)
	if err != nil || len(list) != 1 || list[0].ID != w.ID {
		t.Errorf("Webhooks = %v, %v; want the one", list, err)
	}
	if err := db.DeleteWebhook(ctx, w.ID); err != nil {
		t.Fatal(err)
	}
	for _, err := range []error{db.DeleteWebhook(ctx, w.ID), func() error { _, err := db.Webhook(ctx, w.ID); return err }(),
		func() error { _, err := db.RotateWebhookSecret(ctx, w.ID); return err }()} {
		if !errors.Is(err, ErrNotFound) {
			t.Errorf("a deleted subscription: %v, want ErrNotFound", err)
		}
	}
}

// TestTrimKeepsWebhookBacklog: without a horizon, trimming stops at an enabled subscription's cursor;
// a disabled one holds nothing.
func TestTrimKeepsWebhookBacklog(t *testing.T) {
	db := mustOpenDB(t)
	w, err := db.CreateWebhook(ctx, Webhook{URL: "https://a.example/"}, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, title := range []string{"a", "b"} {
		mustCreateEvent(t, db, admin, newEvent(t, title))
	}
	head, _ := db.ChangeHead(ctx)
	if _, err := db.TrimChanges(ctx, head); err != nil {
		t.Fatal(err)
	}
	if got, err := db.Changes(ctx, w.Cursor, 100); err != nil || len(got) == 0 {
		t.Fatalf("after trimming with an enabled webhook at %d: %v, %v; want its backlog", w.Cursor, got, err)
	}
	if _, err := db.UpdateWebhook(ctx, w.ID, func(w *Webhook) error { w.Disabled = true; return nil }); err != nil {
		t.Fatal(err)
	}
	if _, err := db.TrimChanges(ctx, head); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Changes(ctx, w.Cursor, 100); !errors.Is(err, ErrCompacted) {
		t.Errorf("after trimming with the webhook disabled: %v; want ErrCompacted", err)
	}
}

func TestParseWebhookFilters(t *testing.T) {
	tests := []struct {
		kinds, langs string
		wantKinds    []DocKind
		wantLangs    []Lang
		wantErr      bool
	}{
		{"", "", nil, nil, false},
		{"event, tag", "fr,de", []DocKind{DocEvent, DocTag}, []Lang{"fr", "de"}, false},
		{"events", "", nil, nil, true},
		{"", "xx", nil, nil, true},
	}
	for _, tc := range tests {
		t.Run(tc.kinds+"|"+tc.langs, func(t *testing.T) {
			k, err1 := ParseWebhookKinds(tc.kinds)
			l, err2 := ParseWebhookLangs(tc.langs)
			if gotErr := err1 != nil || err2 != nil; gotErr != tc.wantErr {
				t.Fatalf("errors %v, %v; want error %v", err1, err2, tc.wantErr)
			}
			if !tc.wantErr && (!slices.Equal(k, tc.wantKinds) || !slices.Equal(l, tc.wantLangs)) {
				t.Errorf("got %v %v, want %v %v", k, l, tc.wantKinds, tc.wantLangs)
			}
		})
	}
}
