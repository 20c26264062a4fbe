package main

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/calendard/calendard/storage"
	"github.com/calendard/calendard/storage/datetime"
)

func permHolds(perms, needs string) bool {
	for _, c := range needs {
		if !strings.ContainsRune(perms, c) {
			return false
		}
	}
	return true
}

// permExpandList turns a permLists want into sorted fixture labels "type-less owner/status".
func permExpandList(want string) []string {
	var out []string
	for group := range strings.SplitSeq(want, ";") {
		owner, statuses, _ := strings.Cut(group, ":")
		owners := []string{strings.TrimSpace(owner)}
		if owners[0] == "*" {
			owners = permOwners
		}
		for _, o := range owners {
			for _, s := range strings.Fields(statuses) {
				out = append(out, o+"/"+s)
			}
		}
	}
	slices.Sort(out)
	return out
}

func diffStrings(want, got []string) string {
	var missing, extra []string
	for _, w := range want {
		if !slices.Contains(got, w) {
			missing = append(missing, w)
		}
	}
	for _, g := range got {
		if !slices.Contains(want, g) {
			extra = append(extra, g)
		}
	}
	if missing == nil && extra == nil {
		return ""
	}
	return fmt.Sprintf("missing %v, unexpected %v", missing, extra)
}

// permCheck compares a response with a table cell: "forbidden" (rest_forbidden, 401 anonymous / 403
// otherwise, 7.6), "NNN code" for an error, "2NN" or "2NN status" for a success whose record has that
// status. wantAuthor, when set, is the author ID a success must report. A 401 must carry
// WWW-Authenticate (1.7).
func permCheck(t *testing.T, role string, r req, res *response, want, wantAuthor string) {
	t.Helper()
	wantStatus, detail := 0, ""
	if want == "forbidden" {
		wantStatus, detail = http.StatusForbidden, "rest_forbidden"
		if role == "anonymous" {
			wantStatus = http.StatusUnauthorized
		}
	} else {
		code, rest, _ := strings.Cut(want, " ")
		wantStatus, _ = strconv.Atoi(code)
		detail = rest
	}
	what := fmt.Sprintf("%s %s as %s", r.method, r.path, role)
	if r.body != nil {
		what += " with " + toJSON(t, r.body)
	}
	if res.status != wantStatus {
		t.Errorf("%s: got %d %s\nwant %s", what, res.status, res.body, want)
		return
	}
	body := res.json(t)
	if wantStatus >= 400 {
		if body["code"] != detail {
			t.Errorf("%s: got code %v, want %s\n%s", what, body["code"], detail, res.body)
		}
		if wantStatus == http.StatusUnauthorized && res.header.Get("WWW-Authenticate") != permWWWAuthenticate {
			t.Errorf("%s: WWW-Authenticate %q", what, res.header.Get("WWW-Authenticate"))
		}
		return
	}
	if detail != "" && body["status"] != detail {
		t.Errorf("%s: got status %v, want %s", what, body["status"], detail)
	}
	if wantAuthor != "" && body["author"] != wantAuthor {
		t.Errorf("%s: got author %v, want %s", what, body["author"], wantAuthor)
	}
}

type permRecord struct {
	id   uint64
	slug string
}

// permFixture holds, for each record type, owner and status of the matrix, one shared record and as
// many fresh ones as the cases consume. They are written through the store in one transaction (the
// create table tests the create routes), with "author" set to the owner.
type permFixture struct {
	s      *server
	auth   map[string]string       // role → credentials ("" anonymous)
	ids    map[string]uint64       // role or "other" → user ID
	recs   map[string]permRecord   // "event/contributor/draft" → shared record
	labels map[uint64]string       // shared record ID → "owner/status"
	mu     sync.Mutex              // guards fresh
	fresh  map[string][]permRecord // "event/contributor/draft" → unused records
}

func newPermFixture(t *testing.T, s *server, cases []permCase) *permFixture {
	t.Helper()
	ctx := context.Background()
	f := &permFixture{s: s, auth: map[string]string{"anonymous": "", "administrator": adminAuth},
		ids: map[string]uint64{}, recs: map[string]permRecord{}, labels: map[uint64]string{}, fresh: map[string][]permRecord{}}
	for _, u := range []struct {
		role, login string
		r           storage.Role
	}{
		{"subscriber", "sam", storage.RoleSubscriber},
		{"contributor", "carl", storage.RoleContributor},
		{"author", "ava", storage.RoleAuthor},
		{"editor", "eve", storage.RoleEditor},
		{"other", "olga", storage.RoleAuthor},
	} {
		f.auth[u.role] = s.user(u.login, u.r)
	}
	users, err := s.app.db.Users(ctx)
	if err != nil {
		t.Fatal(err)
	}
	logins := map[string]string{"admin": "administrator", "sam": "subscriber", "carl": "contributor", "ava": "author", "eve": "editor", "olga": "other"}
	for _, u := range users {
		f.ids[logins[u.Login]] = u.ID
	}

	var keys []string // one per record to create; the first of each key is the shared one
	for _, res := range permResources {
		for _, owner := range permOwners {
			for _, status := range permStatuses {
				keys = append(keys, res+"/"+owner+"/"+status)
			}
		}
	}
	for _, c := range cases {
		if c.fresh {
			keys = append(keys, c.rec)
		}
	}
	admin := storage.Actor{UserID: f.ids["administrator"], Role: storage.RoleAdministrator}
	start, err := datetime.Parse(permStart)
	if err != nil {
		t.Fatal(err)
	}
	end, _ := datetime.Parse(permEnd)
	later := time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)
	ids := make([]uint64, len(keys))
	err = s.app.db.Bulk(ctx, admin, func(b *storage.Bulk) error {
		for i, key := range keys {
			parts := strings.Split(key, "/")
			res, owner := parts[0], parts[1]
			live := storage.Status(strings.TrimPrefix(parts[2], "trashed-"))
			in := storage.PostInput{Title: new(fmt.Sprintf("Perm %s %s %d", owner, parts[2], i)), Author: new(f.ids[owner]), Status: &live}
			if live == storage.StatusFuture {
				in.Date = &later
			}
			var err error
			switch res {
			case "event":
				var e *storage.Event
				e, err = b.CreateEvent("en", &storage.EventInput{PostInput: in, Start: &start, End: &end})
				if e != nil {
					ids[i] = e.ID
				}
			case "venue":
				ids[i], err = b.CreateVenue("en", &storage.VenueInput{PostInput: in})
			case "organizer":
				ids[i], err = b.CreateOrganizer("en", &storage.OrganizerInput{PostInput: in})
			}
			if err != nil {
				return fmt.Errorf("%s: %w", key, err)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for i, key := range keys {
		parts := strings.Split(key, "/")
		res, owner, status := parts[0], parts[1], parts[2]
		p := f.post(t, res, ids[i])
		if live := strings.TrimPrefix(status, "trashed-"); string(p.Status) != live || p.Author != f.ids[owner] {
			t.Fatalf("fixture %s: status %s, author %d", key, p.Status, p.Author)
		}
		if strings.HasPrefix(status, "trashed-") {
			f.trash(t, admin, res, ids[i])
		}
		rec := permRecord{id: ids[i], slug: p.Slug}
		if _, ok := f.recs[key]; !ok {
			f.recs[key] = rec
			f.labels[rec.id] = owner + "/" + status
		} else {
			f.fresh[key] = append(f.fresh[key], rec)
		}
	}
	s.settle()
	return f
}

func (f *permFixture) post(t *testing.T, res string, id uint64) *storage.Post {
	t.Helper()
	ctx := context.Background()
	switch res {
	case "event":
		e, _, err := f.s.app.db.Event(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		return &e.Post
	case "venue":
		v, _, err := f.s.app.db.Venue(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		return &v.Post
	}
	o, _, err := f.s.app.db.Organizer(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	return &o.Post
}

func (f *permFixture) trash(t *testing.T, a storage.Actor, res string, id uint64) {
	t.Helper()
	ctx := context.Background()
	var err error
	switch res {
	case "event":
		_, err = f.s.app.db.TrashEvent(ctx, a, id)
	case "venue":
		_, err = f.s.app.db.TrashVenue(ctx, a, id)
	case "organizer":
		_, err = f.s.app.db.TrashOrganizer(ctx, a, id)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// run runs cases as subtests of one group, several at a time: the service serves concurrent requests,
// and writes that arrive together share the index's work.
func (f *permFixture) run(t *testing.T, group string, cases []permCase) {
	t.Helper()
	t.Run(group, func(t *testing.T) {
		next := make(chan permCase)
		var wg sync.WaitGroup
		for range 8 {
			wg.Go(func() {
				for c := range next {
					t.Run(c.name, func(t *testing.T) {
						rec := f.recs[c.rec]
						if c.fresh {
							f.mu.Lock()
							rec, f.fresh[c.rec] = f.fresh[c.rec][0], f.fresh[c.rec][1:]
							f.mu.Unlock()
						}
						c.run(t, f, f.server(t), rec)
					})
				}
			})
		}
		for _, c := range cases {
			next <- c
		}
		close(next)
		wg.Wait()
	})
}

// server is the fixture's server for the subtest t: its helpers then fail t, not the parent test.
func (f *permFixture) server(t *testing.T) *server {
	s := *f.s
	s.t = t
	return &s
}

// body is a minimal valid create body for a record type.
func (f *permFixture) body(res, name string) map[string]any {
	switch res {
	case "event":
		return map[string]any{"title": name, "start_date": permStart, "end_date": permEnd}
	case "venue":
		return map[string]any{"venue": name}
	}
	return map[string]any{"organizer": name}
}

// listed is the sorted labels of the shared fixture records in every page of a list.
func (f *permFixture) listed(t *testing.T, path, role string) []string {
	t.Helper()
	var got []string
	for page := 1; ; page++ {
		url := path + "&page=" + strconv.Itoa(page)
		res := f.server(t).do(req{method: "GET", path: url, auth: f.auth[role]})
		if res.status != http.StatusOK {
			t.Fatalf("GET %s as %s: %d %s", url, role, res.status, res.body)
		}
		body := res.json(t)
		for _, key := range []string{"events", "venues", "organizers"} {
			items, _ := body[key].([]any)
			for _, it := range items {
				id := uint64(it.(map[string]any)["id"].(float64))
				if l, ok := f.labels[id]; ok {
					got = append(got, l)
				}
			}
		}
		if _, more := body["next_rest_url"]; !more {
			break
		}
	}
	slices.Sort(got)
	return got
}
