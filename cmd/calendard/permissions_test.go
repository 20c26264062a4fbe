package main

// End-to-end tests of CONTRACT 7 (authentication and authorization) with 4.2–4.5 (the code each route
// answers on denial), 5.5 (list visibility) and 8.1–8.2 (statuses, status on create).
//
// TestPermissionMatrix is the documentation of who may do what. Its expectations are written out in
// literal tables below (permGrid, permOps, permCreate, permWriteRules, permMissing, permTerms,
// permLists); loops only combine them. A change to the rules must show up as a diff of one of those
// tables, which a reader can check against the contract.

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest"

	"github.com/calendard/calendard/storage"
	"github.com/calendard/calendard/storage/datetime"
)

const (
	permNS              = "/calendar/events/v1"
	permWWWAuthenticate = `Basic realm="calendar-events", Bearer realm="calendar-events"`
	permStart           = "2027-03-01 10:00:00" // inside the events list's default window (5.2)
	permEnd             = "2027-03-01 12:00:00"
	permPublishLater    = "2027-01-01 00:00:00" // after testNow: a publish date that makes a record future
)

// permRoles are the callers of the matrix, least powerful first. Each authenticated role is one user;
// a sixth user, "other", owns the records that are nobody's own.
var permRoles = []string{"anonymous", "subscriber", "contributor", "author", "editor", "administrator"}

// permStatuses are the record states of the matrix: the five live statuses (8.1) and the trash, entered
// from draft and from publish, since permissions on a trashed record follow the status it had before
// (7.5, "effective status").
var permStatuses = []string{"publish", "future", "draft", "pending", "private", "trashed-draft", "trashed-publish"}

// permGrid is CONTRACT 7.4 and 7.5 written out: what a caller may do with a record it owns (own) or
// that another user owns, in each status of permStatuses. R read, E edit, D delete (trash), - no.
//
// Read: publish → everyone; own → always; others' private → read_private_posts; others' future,
// draft, pending, trash → edit_others_posts. Edit and delete: own publish/future → *_published_posts,
// own other statuses (private included) → edit_posts/delete_posts; others' → *_others_posts (+
// *_published_posts if publish/future, + *_private_posts if private).
var permGrid = []struct {
	role  string
	own   bool
	perms [7]string // publish, future, draft, pending, private, trashed-draft, trashed-publish
}{
	{"anonymous", false, [7]string{"R--", "---", "---", "---", "---", "---", "---"}},
	{"subscriber", false, [7]string{"R--", "---", "---", "---", "---", "---", "---"}},
	{"subscriber", true, [7]string{"R--", "R--", "R--", "R--", "R--", "R--", "R--"}},
	{"contributor", false, [7]string{"R--", "---", "---", "---", "---", "---", "---"}},
	{"contributor", true, [7]string{"R--", "R--", "RED", "RED", "RED", "RED", "R--"}},
	{"author", false, [7]string{"R--", "---", "---", "---", "---", "---", "---"}},
	{"author", true, [7]string{"RED", "RED", "RED", "RED", "RED", "RED", "RED"}},
	{"editor", false, [7]string{"RED", "RED", "RED", "RED", "RED", "RED", "RED"}},
	{"editor", true, [7]string{"RED", "RED", "RED", "RED", "RED", "RED", "RED"}},
	{"administrator", false, [7]string{"RED", "RED", "RED", "RED", "RED", "RED", "RED"}},
	{"administrator", true, [7]string{"RED", "RED", "RED", "RED", "RED", "RED", "RED"}},
}

// permOps is what each single-record operation answers (CONTRACT 4.2–4.4, 7.6, 8.5), by whether the
// caller holds the letters of permGrid the operation needs, for a live and for a trashed record. Every
// operation runs by ID and by slug (4.2: a slug match behaves exactly like the ID route, per-record
// check included), except trash-by-update, which runs by ID. "200 =" is 200 with the record's status
// unchanged; "forbidden" is rest_forbidden, 401 for anonymous callers and 403 for the others (7.6).
var permOps = []struct {
	op, res                   string
	needs                     string
	granted, denied           string // live record
	grantedTrash, deniedTrash string // trashed record
}{
	{"get", "event", "R", "200 =", "403 event-not-accessible", "403 event-no-longer-available", "403 event-no-longer-available"},
	{"get", "venue", "R", "200 =", "403 venue-not-accessible", "200 =", "403 venue-not-accessible"},
	{"get", "organizer", "R", "200 =", "403 organizer-not-accessible", "200 =", "403 organizer-not-accessible"},
	{"update", "*", "E", "200 =", "forbidden", "200 =", "forbidden"},
	{"trash-by-update", "*", "ED", "200 trash", "forbidden", "200 trash", "forbidden"},
	{"delete", "event", "D", "200 trash", "forbidden", "410 event-is-in-trash", "forbidden"},
	{"delete", "venue", "D", "200 trash", "forbidden", "410 venue-is-in-trash", "forbidden"},
	{"delete", "organizer", "D", "200 trash", "forbidden", "410 organizer-is-in-trash", "forbidden"},
}

// permCreate is POST /events, /venues and /organizers per caller (CONTRACT 7.6, 8.2): route-level
// edit_posts; publish, future and private from a caller without publish_posts become pending; trash on
// create is a validation error (400 before the permission check, 1.6); author set to another user needs
// edit_others_posts. "201 x" is created with status x; "" is not applicable.
var permCreate = []struct {
	role  string
	cells [9]string // status omitted, publish, future, draft, pending, private, trash, author self, author other
}{
	{"anonymous", [9]string{"forbidden", "forbidden", "forbidden", "forbidden", "forbidden", "forbidden", "400 rest_invalid_param", "", "forbidden"}},
	{"subscriber", [9]string{"forbidden", "forbidden", "forbidden", "forbidden", "forbidden", "forbidden", "400 rest_invalid_param", "forbidden", "forbidden"}},
	{"contributor", [9]string{"201 draft", "201 pending", "201 pending", "201 draft", "201 pending", "201 pending", "400 rest_invalid_param", "201 draft", "403 rest_cannot_edit_others"}},
	{"author", [9]string{"201 publish", "201 publish", "201 future", "201 draft", "201 pending", "201 private", "400 rest_invalid_param", "201 publish", "403 rest_cannot_edit_others"}},
	{"editor", [9]string{"201 publish", "201 publish", "201 future", "201 draft", "201 pending", "201 private", "400 rest_invalid_param", "201 publish", "201 publish"}},
	{"administrator", [9]string{"201 publish", "201 publish", "201 future", "201 draft", "201 pending", "201 private", "400 rest_invalid_param", "201 publish", "201 publish"}},
}

var permCreateColumns = [9]string{"status omitted", "status publish", "status future", "status draft", "status pending", "status private", "status trash", "author self", "author other"}

// permWriteRules are the rules inside write handlers (CONTRACT 7.6, 8.2, 8.3, 8.5), each applied to a
// fresh record of every type. setAuthor is "self", "other" or "unknown" (a user ID that does not exist).
var permWriteRules = []struct {
	name                 string
	role                 string
	own                  bool
	status               string // of the record before the update
	setStatus, setAuthor string
	want                 string // "200 <status>" or an error
}{
	{"publish from a contributor becomes pending", "contributor", true, "draft", "publish", "", "200 pending"},
	{"future from a contributor becomes pending", "contributor", true, "draft", "future", "", "200 pending"},
	{"private from a contributor becomes pending", "contributor", true, "draft", "private", "", "200 pending"},
	{"a contributor moves own pending back to draft", "contributor", true, "pending", "draft", "", "200 draft"},
	{"an author publishes own draft", "author", true, "draft", "publish", "", "200 publish"},
	{"an author schedules own draft", "author", true, "draft", "future", "", "200 future"},
	{"an author makes own draft private", "author", true, "draft", "private", "", "200 private"},
	{"a contributor names itself author", "contributor", true, "draft", "", "self", "200 draft"},
	{"a contributor gives own draft away", "contributor", true, "draft", "", "other", "403 rest_cannot_edit_others"},
	{"an author gives own published record away", "author", true, "publish", "", "other", "403 rest_cannot_edit_others"},
	{"an editor takes over another user's draft", "editor", false, "draft", "", "self", "200 draft"},
	{"an administrator reassigns to another user", "administrator", true, "draft", "", "other", "200 draft"},
	{"unknown author", "administrator", false, "draft", "", "unknown", "400 rest_invalid_param"},
	{"a contributor restores own trashed draft", "contributor", true, "trashed-draft", "draft", "", "200 draft"},
	{"a contributor restores own trashed draft as publish", "contributor", true, "trashed-draft", "publish", "", "200 pending"},
	{"a contributor cannot restore own trashed published record", "contributor", true, "trashed-publish", "draft", "", "forbidden"},
	{"an author restores own trashed published record", "author", true, "trashed-publish", "publish", "", "200 publish"},
	{"a subscriber cannot publish own draft", "subscriber", true, "draft", "publish", "", "forbidden"},
}

// permMissing is what a path that designates no record answers (CONTRACT 4.2–4.4, 4.9, 7.6): event
// writes check edit_posts / delete_posts before answering 404; unknown slugs, and unknown venue and
// organizer IDs, are 400 rest_invalid_param for every caller and method. roles nil means every caller.
var permMissing = []struct {
	roles               []string
	path                string
	get, update, delete string
}{
	{[]string{"anonymous", "subscriber"}, "events/999999", "404 rest-event-not-found", "forbidden", "forbidden"},
	{[]string{"contributor", "author", "editor", "administrator"}, "events/999999", "404 rest-event-not-found", "404 rest-event-not-found", "404 rest-event-not-found"},
	{nil, "events/by-slug/no-such-event", "400 rest_invalid_param", "400 rest_invalid_param", "400 rest_invalid_param"},
	{nil, "venues/999999", "400 rest_invalid_param", "400 rest_invalid_param", "400 rest_invalid_param"},
	{nil, "venues/by-slug/no-such-venue", "400 rest_invalid_param", "400 rest_invalid_param", "400 rest_invalid_param"},
	{nil, "organizers/999999", "400 rest_invalid_param", "400 rest_invalid_param", "400 rest_invalid_param"},
	{nil, "organizers/by-slug/no-such-organizer", "400 rest_invalid_param", "400 rest_invalid_param", "400 rest_invalid_param"},
}

// permTerms is CONTRACT 4.5 and 7.4 for categories and tags: terms are public; writes need edit_posts
// and manage_categories (categories: authors included) or manage_tags (tags: authors excluded).
var permTerms = []struct {
	role          string
	category, tag [4]string // get, create, update, delete
}{
	{"anonymous", [4]string{"200", "forbidden", "forbidden", "forbidden"}, [4]string{"200", "forbidden", "forbidden", "forbidden"}},
	{"subscriber", [4]string{"200", "forbidden", "forbidden", "forbidden"}, [4]string{"200", "forbidden", "forbidden", "forbidden"}},
	{"contributor", [4]string{"200", "forbidden", "forbidden", "forbidden"}, [4]string{"200", "forbidden", "forbidden", "forbidden"}},
	{"author", [4]string{"200", "201", "200", "200"}, [4]string{"200", "forbidden", "forbidden", "forbidden"}},
	{"editor", [4]string{"200", "201", "200", "200"}, [4]string{"200", "201", "200", "200"}},
	{"administrator", [4]string{"200", "201", "200", "200"}, [4]string{"200", "201", "200", "200"}},
}

// permLists is CONTRACT 5.5: which fixture records each caller finds in the events, venues and
// organizers lists. want is "owner: statuses" groups separated by ";", where "*" is every owner
// (subscriber contributor author editor administrator other), or an error.
var permLists = []struct {
	role, query, want string
}{
	{"anonymous", "", "*: publish"},
	{"subscriber", "", "*: publish"},
	{"contributor", "", "*: publish; contributor: future draft pending private"},
	{"author", "", "*: publish; author: future draft pending private"},
	{"editor", "", "*: publish future draft pending private"},
	{"administrator", "", "*: publish future draft pending private"},

	{"anonymous", "status=publish", "*: publish"},
	{"anonymous", "status=publish,+publish", "*: publish"},
	{"subscriber", "status=publish,draft", "400 rest_invalid_param"},
	{"subscriber", "status=publish", "*: publish"},
	{"anonymous", "status=draft", "400 rest_invalid_param"},
	{"subscriber", "status=draft", "400 rest_invalid_param"},
	{"contributor", "status=draft", "contributor: draft"},
	{"author", "status=draft", "author: draft"},
	{"editor", "status=draft", "*: draft"},
	{"administrator", "status=draft", "*: draft"},

	{"subscriber", "status=private", "400 rest_invalid_param"},
	{"contributor", "status=private", "contributor: private"},
	{"author", "status=private", "author: private"},
	{"editor", "status=private", "*: private"},

	{"anonymous", "status=trash", "400 rest_invalid_param"},
	{"contributor", "status=trash", "contributor: trashed-draft trashed-publish"},
	{"author", "status=trash", "author: trashed-draft trashed-publish"},
	{"editor", "status=trash", "*: trashed-draft trashed-publish"},
	{"administrator", "status=publish,trash", "*: publish trashed-draft trashed-publish"},
}

var permOwners = []string{"subscriber", "contributor", "author", "editor", "administrator", "other"}

var permResources = []string{"event", "venue", "organizer"}

func TestPermissionMatrix(t *testing.T) {
	t.Parallel()
	// The matrix sends hundreds of writes as each role on a frozen clock: the write limit of users below
	// editor (limits_test.go) would answer most of them 429.
	s := startServerLogged(t, t.TempDir(), zaptest.NewLogger(t, zaptest.Level(zap.WarnLevel)), "CALENDAR_WRITE_RATE_LIMIT_PER_MINUTE=0")
	recordCases := permRecordCases()
	otherCases := slices.Concat(permCreateCases(), permWriteRuleCases(), permMissingCases(), permTermCases())
	f := newPermFixture(t, s, slices.Concat(recordCases, otherCases))

	t.Run("lists", func(t *testing.T) {
		for _, tc := range permLists {
			for _, res := range permResources {
				path := permNS + "/" + res + "s?per_page=100"
				if tc.query != "" {
					path += "&" + tc.query
				}
				t.Run(res+"/"+tc.role+"/"+tc.query, func(t *testing.T) {
					if !strings.Contains(tc.want, ":") {
						r := req{method: "GET", path: path, auth: f.auth[tc.role]}
						permCheck(t, tc.role, r, f.server(t).do(r), tc.want, "")
						return
					}
					if diff := diffStrings(permExpandList(tc.want), f.listed(t, path, tc.role)); diff != "" {
						t.Errorf("GET %s as %s (CONTRACT 5.5): %s", path, tc.role, diff)
					}
				})
			}
		}
	})
	// 1.7: Allow lists the methods whose route-level check (7.6) passes, which on a single record is the
	// caller's right on that record: GET always, DELETE with D, the updates with E.
	t.Run("allow", func(t *testing.T) {
		for _, g := range permGrid {
			owner := "other"
			if g.own {
				owner = g.role
			}
			for i, status := range permStatuses {
				for _, res := range permResources {
					rec := f.recs[res+"/"+owner+"/"+status]
					want := "GET"
					if strings.Contains(g.perms[i], "D") {
						want += ", DELETE"
					}
					if strings.Contains(g.perms[i], "E") {
						want += ", POST, PUT, PATCH"
					}
					for _, path := range []string{permNS + "/" + res + "s/" + utoa(rec.id), permNS + "/" + res + "s/by-slug/" + rec.slug} {
						r := req{method: "OPTIONS", path: path, auth: f.auth[g.role]}
						if got := f.server(t).do(r).header.Get("Allow"); got != want {
							t.Errorf("OPTIONS %s as %s on %s's %s %s: Allow %q, want %q", path, g.role, owner, status, res, got, want)
						}
					}
				}
			}
		}
	})
	// Cases that trash a shared record (a denial the service wrongly grants) run after every case that
	// reads one; a case expected to trash or change a record gets a fresh one of its own.
	var reads, trashes []permCase
	for _, c := range recordCases {
		if c.op == "delete" || c.op == "trash-by-update" {
			trashes = append(trashes, c)
		} else {
			reads = append(reads, c)
		}
	}
	f.run(t, "read-update", reads)
	f.run(t, "trash", trashes)
	f.run(t, "rules", otherCases)
}

// permCase is one request of the matrix. rec is "type/owner/status" of the record it addresses; fresh
// says the case consumes a record of its own.
type permCase struct {
	name, op string
	rec      string
	fresh    bool
	run      func(t *testing.T, f *permFixture, s *server, rec permRecord)
}

// permRecordCases combines permGrid and permOps into the single-record cases.
func permRecordCases() []permCase {
	var cases []permCase
	for _, op := range permOps {
		for _, res := range permResources {
			if op.res != "*" && op.res != res {
				continue
			}
			for _, g := range permGrid {
				for i, status := range permStatuses {
					granted := permHolds(g.perms[i], op.needs)
					trashed := strings.HasPrefix(status, "trashed-")
					want := op.denied
					switch {
					case granted && trashed:
						want = op.grantedTrash
					case trashed:
						want = op.deniedTrash
					case granted:
						want = op.granted
					}
					live := strings.TrimPrefix(status, "trashed-")
					if trashed {
						live = "trash"
					}
					want = strings.Replace(want, "=", live, 1)
					owner, whose := "other", "others"
					if g.own {
						owner, whose = g.role, "own"
					}
					for _, by := range []string{"id", "slug"} {
						if op.op == "trash-by-update" && by == "slug" {
							continue
						}
						cases = append(cases, permCase{
							name:  fmt.Sprintf("%s/%s-by-%s/%s/%s/%s", res, op.op, by, g.role, whose, status),
							op:    op.op,
							rec:   res + "/" + owner + "/" + status,
							fresh: (op.op == "delete" || op.op == "trash-by-update") && granted && !trashed,
							run: func(t *testing.T, f *permFixture, s *server, rec permRecord) {
								r := req{method: "GET", path: permNS + "/" + res + "s/" + utoa(rec.id), auth: f.auth[g.role]}
								if by == "slug" {
									r.path = permNS + "/" + res + "s/by-slug/" + rec.slug
								}
								switch op.op {
								case "update":
									r.method, r.body = "PATCH", permHarmless[res]
								case "trash-by-update":
									r.method, r.body = "PATCH", map[string]any{"status": "trash"}
								case "delete":
									r.method = "DELETE"
								}
								permCheck(t, g.role, r, s.do(r), want, "")
							},
						})
					}
				}
			}
		}
	}
	return cases
}

func permCreateCases() []permCase {
	var cases []permCase
	for _, row := range permCreate {
		for _, res := range permResources {
			for i, want := range row.cells {
				if want == "" {
					continue
				}
				col := permCreateColumns[i]
				cases = append(cases, permCase{name: "create/" + res + "/" + row.role + "/" + col, run: func(t *testing.T, f *permFixture, s *server, _ permRecord) {
					body := f.body(res, fmt.Sprintf("Created %s %s %d", row.role, res, i))
					wantAuthor := ""
					switch {
					case strings.HasPrefix(col, "status "):
						if st := strings.TrimPrefix(col, "status "); st != "omitted" {
							body["status"] = st
						}
						if col == "status future" {
							body["date_utc"] = permPublishLater
						}
					case col == "author self":
						body["author"], wantAuthor = f.ids[row.role], utoa(f.ids[row.role])
					case col == "author other":
						body["author"], wantAuthor = f.ids["other"], utoa(f.ids["other"])
					}
					r := req{method: "POST", path: permNS + "/" + res + "s", auth: f.auth[row.role], body: body}
					permCheck(t, row.role, r, s.do(r), want, wantAuthor)
				}})
			}
		}
	}
	return cases
}

func permWriteRuleCases() []permCase {
	var cases []permCase
	for _, tc := range permWriteRules {
		for _, res := range permResources {
			owner := "other"
			if tc.own {
				owner = tc.role
			}
			cases = append(cases, permCase{name: "write-rules/" + res + "/" + tc.name, rec: res + "/" + owner + "/" + tc.status, fresh: true,
				run: func(t *testing.T, f *permFixture, s *server, rec permRecord) {
					body, wantAuthor := map[string]any{}, ""
					if tc.setStatus != "" {
						body["status"] = tc.setStatus
					}
					if tc.setStatus == "future" {
						body["date_utc"] = permPublishLater
					}
					switch tc.setAuthor {
					case "self":
						body["author"], wantAuthor = f.ids[tc.role], utoa(f.ids[tc.role])
					case "other":
						body["author"], wantAuthor = f.ids["other"], utoa(f.ids["other"])
					case "unknown":
						body["author"] = 999
					}
					r := req{method: "PATCH", path: permNS + "/" + res + "s/" + utoa(rec.id), auth: f.auth[tc.role], body: body}
					permCheck(t, tc.role, r, s.do(r), tc.want, wantAuthor)
				}})
		}
	}
	return cases
}

func permMissingCases() []permCase {
	var cases []permCase
	for _, row := range permMissing {
		roles := row.roles
		if roles == nil {
			roles = permRoles
		}
		for _, role := range roles {
			for _, c := range []struct{ method, want string }{{"GET", row.get}, {"PATCH", row.update}, {"DELETE", row.delete}} {
				cases = append(cases, permCase{name: "missing/" + row.path + "/" + c.method + "/" + role, run: func(t *testing.T, f *permFixture, s *server, _ permRecord) {
					r := req{method: c.method, path: permNS + "/" + row.path, auth: f.auth[role]}
					if c.method == "PATCH" {
						r.body = map[string]any{}
					}
					permCheck(t, role, r, s.do(r), c.want, "")
				}})
			}
		}
	}
	return cases
}

func permTermCases() []permCase {
	var cases []permCase
	for _, row := range permTerms {
		for _, tax := range []struct {
			route string
			want  [4]string
		}{{"categories", row.category}, {"tags", row.tag}} {
			cases = append(cases, permCase{name: "terms/" + tax.route + "/" + row.role, run: func(t *testing.T, f *permFixture, s *server, _ permRecord) {
				path := permNS + "/" + tax.route
				shared := s.create(path, map[string]any{"name": "Shared " + tax.route + " " + row.role})
				doomed := shared
				if strings.HasPrefix(tax.want[3], "2") {
					doomed = s.create(path, map[string]any{"name": "Doomed " + tax.route + " " + row.role})
				}
				for i, r := range []req{
					{method: "GET", path: path + "/" + utoa(shared)},
					{method: "POST", path: path, body: map[string]any{"name": "New " + tax.route + " " + row.role}},
					{method: "PATCH", path: path + "/" + utoa(shared), body: map[string]any{"description": "Edited"}},
					{method: "DELETE", path: path + "/" + utoa(doomed)},
				} {
					r.auth = f.auth[row.role]
					permCheck(t, row.role, r, s.do(r), tax.want[i], "")
				}
			}})
		}
	}
	return cases
}

// permHarmless is an update body per record type that changes nothing a permission depends on.
var permHarmless = map[string]any{
	"event":     map[string]any{"excerpt": "Edited"},
	"venue":     map[string]any{"city": "Gent"},
	"organizer": map[string]any{"phone": "123"},
}

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

// syncBuffer is a log sink that goroutines may share.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) Sync() error { return nil }

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestAuthentication covers CONTRACT 7.2 and 7.3 end to end, and checks that no password reaches the
// logs.
func TestAuthentication(t *testing.T) {
	t.Parallel()
	var logs syncBuffer
	log := zap.New(zapcore.NewCore(zapcore.NewJSONEncoder(zap.NewProductionEncoderConfig()), &logs, zapcore.DebugLevel))
	s := startServerLogged(t, t.TempDir(), log)
	carl := s.user("carl", storage.RoleContributor) // user 2
	ava := s.user("ava", storage.RoleAuthor)
	_, carlPass, _ := strings.Cut(carl, ":")
	_, avaPass, _ := strings.Cut(ava, ":")
	carlSecond, err := s.app.db.CreateAppPassword(context.Background(), "carl", "second")
	if err != nil {
		t.Fatal(err)
	}
	draft := permNS + "/events/" + utoa(s.create(permNS+"/events", map[string]any{"title": "Carl's draft", "status": "draft",
		"author": 2, "start_date": permStart, "end_date": permEnd}))
	public := permNS + "/events/" + utoa(s.create(permNS+"/events", map[string]any{"title": "Public", "start_date": permStart, "end_date": permEnd}))

	const wrongPass = "WrongPassword0123456789x"
	basic := func(s string) string { return "Basic " + base64.StdEncoding.EncodeToString([]byte(s)) }
	grouped := func(p string) string { // "abcd efgh ijkl mnop qrst uvwx", as WordPress shows it
		var g []string
		for i := 0; i < len(p); i += 4 {
			g = append(g, p[i:i+4])
		}
		return strings.Join(g, " ")
	}
	secrets := []string{adminPass, carlPass, avaPass, carlSecond, wrongPass, grouped(carlPass), grouped(wrongPass)}

	tests := []struct {
		name   string
		auth   string // the Authorization header as sent
		method string
		path   string
		want   string // "200", "NNN code"
	}{
		// 7.3: every failure is 401 before routing, whatever the route.
		{"not base64", "Basic !!!", "GET", public, "401 invalid_username"},
		{"no colon", basic("carl" + carlPass), "GET", public, "401 invalid_username"},
		{"empty basic", "Basic", "GET", public, "401 invalid_username"},
		{"unknown login", basic("nobody:" + carlPass), "GET", public, "401 invalid_username"},
		{"unknown e-mail", basic("nobody@example.org:" + carlPass), "GET", public, "401 invalid_email"},
		{"wrong password", basic("carl:" + wrongPass), "GET", public, "401 incorrect_password"},
		{"another user's password", basic("carl:" + avaPass), "GET", public, "401 incorrect_password"},
		{"empty password", basic("carl:"), "GET", public, "401 incorrect_password"},
		{"e-mail with a wrong password", basic("carl@example.org:" + wrongPass), "GET", public, "401 incorrect_password"},
		{"unknown token", "Bearer " + wrongPass, "GET", public, "401 invalid_token"},
		{"empty token", "Bearer", "GET", public, "401 invalid_token"},
		{"login as token", "Bearer carl", "GET", public, "401 invalid_token"},
		{"failure before routing", basic("carl:" + wrongPass), "GET", permNS + "/no-such-route", "401 incorrect_password"},
		{"failure before validation", basic("carl:" + wrongPass), "POST", permNS + "/events", "401 incorrect_password"},
		// 7.2: accepted forms; the draft is readable only by carl, so 200 proves who the caller is.
		{"basic with login", basic(carl), "GET", draft, "200"},
		{"basic with e-mail", basic("carl@example.org:" + carlPass), "GET", draft, "200"},
		{"basic with the grouped form", basic("carl:" + grouped(carlPass)), "GET", draft, "200"},
		{"second application password", basic("carl:" + carlSecond), "GET", draft, "200"},
		{"bearer", "Bearer " + carlPass, "GET", draft, "200"},
		{"bearer with the grouped form", "Bearer " + grouped(carlPass), "GET", draft, "200"},
		{"another user", basic(ava), "GET", draft, "403 event-not-accessible"},
		// No header, or another scheme: anonymous (reads of public content work, writes are 401).
		{"no header", "", "GET", draft, "403 event-not-accessible"},
		{"no header, public", "", "GET", public, "200"},
		{"digest scheme", "Digest username=\"carl\"", "GET", draft, "403 event-not-accessible"},
		{"token scheme with a valid password", "Token " + carlPass, "GET", public, "200"},
		{"other scheme writes", "Token " + carlPass, "PATCH", draft, "401 rest_forbidden"},
		{"anonymous write", "", "DELETE", draft, "401 rest_forbidden"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := req{method: tc.method, path: tc.path, header: map[string]string{}}
			if tc.auth != "" {
				r.header["Authorization"] = tc.auth
			}
			if tc.method == "POST" || tc.method == "PATCH" {
				r.body = map[string]any{"title": "Changed"}
			}
			res := s.do(r)
			authCheck(t, tc.name, res, tc.want)
		})
	}

	t.Run("revocation takes effect immediately", func(t *testing.T) {
		if err := s.app.db.RevokeAppPassword(context.Background(), "carl", "test"); err != nil {
			t.Fatal(err)
		}
		authCheck(t, "revoked basic", s.do(req{method: "GET", path: draft, auth: carl}), "401 incorrect_password")
		authCheck(t, "revoked bearer", s.do(req{method: "GET", path: draft, auth: "Bearer " + carlPass}), "401 invalid_token")
		authCheck(t, "other password", s.do(req{method: "GET", path: draft, auth: "carl:" + carlSecond}), "200")
	})

	t.Run("no password in the logs", func(t *testing.T) {
		s.stop() // every request line is written
		out := logs.String()
		if n := strings.Count(out, `"msg":"request"`); n < len(tests) {
			t.Fatalf("%d request lines in the log, want at least %d:\n%s", n, len(tests), out)
		}
		if !strings.Contains(out, `"path":"`+draft+`"`) {
			t.Errorf("the log has no request line for %s:\n%s", draft, out)
		}
		for _, secret := range secrets {
			for _, form := range []string{secret, base64.StdEncoding.EncodeToString([]byte("carl:" + secret))} {
				if strings.Contains(out, form) {
					t.Errorf("the log contains the secret %q", form)
				}
			}
		}
	})
}

func authCheck(t *testing.T, name string, res *response, want string) {
	t.Helper()
	code, detail, _ := strings.Cut(want, " ")
	if strconv.Itoa(res.status) != code {
		t.Errorf("%s: got %d %s, want %s", name, res.status, res.body, want)
		return
	}
	if detail != "" {
		if got := res.json(t)["code"]; got != detail {
			t.Errorf("%s: got code %v, want %s", name, got, detail)
		}
	}
	if got := res.header.Get("WWW-Authenticate"); res.status == http.StatusUnauthorized && got != permWWWAuthenticate {
		t.Errorf("%s: 401 with WWW-Authenticate %q, want %q", name, got, permWWWAuthenticate)
	}
}
