package main

// End-to-end tests of docs/API.md "Authentication and permissions" (authentication and authorization) with 4.2–4.5 (the code each route
// answers on denial), 5.5 (list visibility) and 8.1–8.2 (statuses, status on create).
//
// TestPermissionMatrix is the documentation of who may do what. Its expectations are written out in
// literal tables below (permGrid, permOps, permCreate, permWriteRules, permMissing, permTerms,
// permLists); loops only combine them. A change to the rules must show up as a diff of one of those
// tables, which a reader can check against the contract.

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest"
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

// permGrid is docs/API.md "Authentication and permissions" written out: what a caller may do with a record it owns (own) or
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

// permOps is what each single-record operation answers (docs/API.md "Events", "Venues and organizers", "Authentication and permissions", "Statuses"), by whether the
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

// permCreate is POST /events, /venues and /organizers per caller (docs/API.md "Authentication and permissions", "Statuses"): route-level
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

// permWriteRules are the rules inside write handlers (docs/API.md "Authentication and permissions", "Statuses"), each applied to a
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

// permMissing is what a path that designates no record answers (docs/API.md "Events", "Venues and organizers", "Routes", "Authentication and permissions"): event
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

// permTerms is docs/API.md "Categories and tags", "Authentication and permissions" for categories and tags: terms are public; writes need edit_posts
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

// permLists is docs/API.md "Lists": which fixture records each caller finds in the events, venues and
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
						t.Errorf("GET %s as %s (docs/API.md, Lists): %s", path, tc.role, diff)
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
