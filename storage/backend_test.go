package storage

import (
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/calendard/calendard/storage/kv/etcdkv"
	"github.com/calendard/calendard/storage/kv/etcdkv/etcdtest"
	"github.com/calendard/calendard/storage/kv/replica"
)

// The store's tests run on bbolt, and those named in TestEtcd again on etcd, so that both backends
// answer identically, and once more on a cluster node's store (TestCluster): writes to etcd, reads
// from the node's copy of it (package replica). One embedded etcd member serves the package
// (etcdtest.Shared); each store gets a prefix of its own.

func TestMain(m *testing.M) { etcdtest.Main(m) }

// onEtcd tells whether a test runs on etcd: the subtests of TestEtcd and TestCluster do. The backend
// follows the test's name rather than a package variable, so bbolt and etcd runs never share state.
func onEtcd(tb testing.TB) bool { return strings.HasPrefix(tb.Name(), "TestEtcd/") || onCluster(tb) }

// onCluster tells whether a test runs on a cluster node's copy of etcd: the subtests of TestCluster.
func onCluster(tb testing.TB) bool { return strings.HasPrefix(tb.Name(), "TestCluster/") }

// openTestDB opens a new store with opts on the test's backend: a bbolt file in a temp dir, a new
// prefix of the shared etcd member, or a copy of one in a temp dir.
func openTestDB(tb testing.TB, opts Options) (*DB, error) {
	tb.Helper()
	switch {
	case onCluster(tb):
		s, err := etcdkv.Open(ctx, etcdtest.Shared(tb).Config())
		if err != nil {
			return nil, err
		}
		r, err := replica.Open(ctx, filepath.Join(tb.TempDir(), "replica.db"), s, replica.Options{})
		if err != nil {
			s.Close()
			return nil, err
		}
		return OpenStore(r, opts)
	case onEtcd(tb):
		return openEtcdDB(etcdtest.Shared(tb), opts)
	}
	return Open(filepath.Join(tb.TempDir(), "calendar.db"), opts)
}

// openEtcdDB opens a new store with opts under a new prefix of member.
func openEtcdDB(member *etcdtest.Server, opts Options) (*DB, error) {
	s, err := etcdkv.Open(ctx, member.Config())
	if err != nil {
		return nil, err
	}
	return OpenStore(s, opts)
}

// testFollow: a store following the change log (Follow) is notified of another node's writes, which
// its own commits alone would never tell; Follow ends with its context. On a bbolt file it only waits.
func testFollow(t *testing.T) {
	member := etcdtest.Shared(t)
	cfg := member.Config()
	open := func() *DB {
		s, err := etcdkv.Open(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		db, err := OpenStore(s, Options{Now: func() time.Time { return testNow }})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db
	}
	a, b := open(), open()
	changed, unsubscribe := b.Subscribe()
	defer unsubscribe()
	fctx, cancel := context.WithCancel(ctx)
	done := make(chan error)
	go func() { done <- b.Follow(fctx) }()
	// Follow's watch starts when it is set up, which the test cannot see: it writes until told, a
	// bounded number of times.
	told := false
	for i := 0; i < 50 && !told; i++ {
		mustCreateEvent(t, a, admin, newEvent(t, fmt.Sprint("On the other node ", i)))
		select {
		case <-changed:
			told = true
		case <-time.After(200 * time.Millisecond):
		}
	}
	if !told {
		t.Error("the other node's writes were not notified")
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("Follow = %v, want context.Canceled", err)
	}
	// The bbolt file: Follow waits for its context only.
	file, err := Open(filepath.Join(t.TempDir(), "calendar.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := file.Follow(cctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Follow on a file = %v, want context.Canceled", err)
	}
}

// BenchmarkWriteLatency: one event create (a new venue of its own name, an existing category: one
// transaction with its links, counts and change-log entries) on the bbolt file and on a single etcd
// member in the same process, both syncing every commit to disk. It reports the latency's p50 and
// p99. The titles and venue names differ so that each create reads as many keys as the last (a
// duplicate name is read back, and a taken slug probed, one more each time): 30 keys, one round trip
// each on etcd.
func BenchmarkWriteLatency(b *testing.B) {
	member, err := etcdtest.StartDurable()
	if err != nil {
		b.Fatal(err)
	}
	defer member.Close()
	for _, backend := range []string{"bbolt", "etcd"} {
		b.Run(backend, func(b *testing.B) {
			opts := Options{Now: func() time.Time { return testNow }}
			db, err := Open(filepath.Join(b.TempDir(), "calendar.db"), opts)
			if backend == "etcd" {
				db, err = openEtcdDB(member, opts)
			}
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			var took []time.Duration
			create := func() {
				in := newEvent(b, fmt.Sprint("Jazz concert ", len(took)))
				in.Venue = &VenueRef{New: &VenueInput{PostInput: PostInput{Title: ptr(fmt.Sprint("Hall ", len(took)))}}}
				in.Categories = &[]string{"Category 1"}
				start := time.Now()
				if _, err := db.CreateEvent(ctx, admin, "en", in); err != nil {
					b.Fatal(err)
				}
				took = append(took, time.Since(start))
			}
			create() // the category
			took = took[:0]
			for b.Loop() {
				create()
			}
			slices.Sort(took)
			b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(took[len(took)*99/100].Microseconds())/1000, "p99-ms")
		})
	}
}

// TestEtcd runs the store's tests on etcd. It names every test but those of what only a bbolt file
// has (its layout, pages, size, backups, a file's schema migrations, the disk filling up) and those
// reopening a store at its path (bboltOnly); TestEtcdNamesEveryTest checks that each of the package's
// tests is in one list or the other.
func TestEtcd(t *testing.T) {
	for _, tc := range etcdTests {
		t.Run(tc.name, tc.test)
	}
}

// TestCluster runs TestEtcd's tests on a cluster node's store: every write through etcd, every read
// from the node's copy, which has applied the write when it returns.
func TestCluster(t *testing.T) {
	for _, tc := range etcdTests {
		t.Run(tc.name, tc.test)
	}
}

var etcdTests = []struct {
	name string
	test func(*testing.T)
}{
	{"TestBulkPut", TestBulkPut},
	{"TestExternalLinks", TestExternalLinks},
	{"TestOrigins", TestOrigins},
	{"TestBulkPutTerm", TestBulkPutTerm},
	{"TestBulkPutPlaceSlug", TestBulkPutPlaceSlug},
	{"TestBulkTrash", TestBulkTrash},
	{"TestGuardMirrored", TestGuardMirrored},
	{"TestLocalIDBase", TestLocalIDBase},
	{"TestImportNeverOverwritesLocal", TestImportNeverOverwritesLocal},
	{"TestDocsFollowWrites", TestDocsFollowWrites},
	{"TestChangedSince", TestChangedSince},
	{"TestInputRules", TestInputRules},
	{"TestNoWebsite", TestNoWebsite},
	{"TestEveryWriteAppliesTheInputRules", TestEveryWriteAppliesTheInputRules},
	{"TestSingleLineFields", TestSingleLineFields},
	{"TestNamingTermsNeedsTheirRight", TestNamingTermsNeedsTheirRight},
	{"TestTrimPastTheTransactionLimit", TestTrimPastTheTransactionLimit},
	{"TestVenuePositionOnEarth", TestVenuePositionOnEarth},
	{"TestPublishDue", TestPublishDue},
	{"TestTrimChanges", TestTrimChanges},
	{"TestWebhooks", TestWebhooks},
	{"TestTrimKeepsWebhookBacklog", TestTrimKeepsWebhookBacklog},
	{"TestDueScheduledEventsAreCounted", TestDueScheduledEventsAreCounted},
	{"TestLoadReportsTheNextScheduledDate", TestLoadReportsTheNextScheduledDate},
	{"TestPublishDueInBatches", TestPublishDueInBatches},
	{"TestPublishDueDropsStrayEntries", TestPublishDueDropsStrayEntries},
	{"TestPublishDueSkipsEntriesGoneSinceRead", TestPublishDueSkipsEntriesGoneSinceRead},
	{"TestNeverPublic", TestNeverPublic},
	{"TestRuleOccurrences", TestRuleOccurrences},
	{"TestRuleRejects", TestRuleRejects},
	{"TestRuleUntilType", TestRuleUntilType},
	{"TestScheduledBucketFollowsEveryWrite", TestScheduledBucketFollowsEveryWrite},
	{"TestScheduledEntriesFollowEventLinks", TestScheduledEntriesFollowEventLinks},
	{"TestSeriesMaterialises", TestSeriesMaterialises},
	{"TestSeriesRejectsBadRules", TestSeriesRejectsBadRules},
	{"TestSeriesMaxText", TestSeriesMaxText},
	{"TestScanPages", TestScanPages},
	{"TestSeriesEdits", TestSeriesEdits},
	{"TestSeriesInAFixedOffsetZone", TestSeriesInAFixedOffsetZone},
	{"TestSeriesOccurrenceLength", TestSeriesOccurrenceLength},
	{"TestFirstExcluded", TestFirstExcluded},
	{"TestTrashOccurrence", TestTrashOccurrence},
	{"TestSeriesPastStays", TestSeriesPastStays},
	{"TestExtendSeries", TestExtendSeries},
	{"TestBulkOccurrence", TestBulkOccurrence},
	{"TestChangeLogNamesEveryTouchedDocument", TestChangeLogNamesEveryTouchedDocument},
	{"TestIDsShareOneSequence", TestIDsShareOneSequence},
	{"TestSlugs", TestSlugs},
	{"TestTermCounts", TestTermCounts},
	{"TestCategoryTree", TestCategoryTree},
	{"TestDuplicateAvoidance", TestDuplicateAvoidance},
	{"TestTranslationGroups", TestTranslationGroups},
	{"TestEventDates", TestEventDates},
	{"TestPermissions", TestPermissions},
	{"TestAppPasswords", TestAppPasswords},
	{"TestCreateUserChecksLoginAndEmail", TestCreateUserChecksLoginAndEmail},
	{"TestRecordCacheServesTheCurrentVersion", TestRecordCacheServesTheCurrentVersion},
	{"TestTermCacheServesTheCurrentVersion", TestTermCacheServesTheCurrentVersion},
	{"TestTermWriteFailsWhenItsEventsCannotBeLogged", TestTermWriteFailsWhenItsEventsCannotBeLogged},
	{"TestTrimKeepsTheHorizon", TestTrimKeepsTheHorizon},
	{"NotAFile", testNotAFile},
	{"Follow", testFollow},
	{"TestSubscribe", TestSubscribe},
}

// bboltOnly are the tests TestEtcd leaves out, with the reason.
var bboltOnly = map[string]string{
	"TestParseWebhookFilters":            "parses text, no store",
	"TestCopyRoundTrip":                  "copies between both backends itself",
	"TestCopyCutShort":                   "copies into a bbolt file",
	"TestBackupRoundTrip":                "Backup copies the bbolt file's pages",
	"TestBackupFileKeepsTargetOnFailure": "Backup copies the bbolt file's pages",
	"TestInspectRejects":                 "Inspect checks a bbolt file",
	"TestInspectNamesWhatIsMissing":      "Inspect checks a bbolt file",
	"TestLayout":                         "the bbolt file's layout, byte for byte",
	"TestFileSize":                       "the bbolt file's size",
	"TestDiskFull":                       "a disk filling up under the bbolt file",
	"TestSchema1Migrates":                "a bbolt file of an older schema",
	"TestSchema2Migrates":                "a bbolt file of an older schema",
	"TestExtendSeriesGoesOnPastAFailure": "reopens the store at its path",
	"TestEtcd":                           "runs the others on etcd",
	"TestCluster":                        "runs the others on a copy of etcd",
	"TestCompactHistory":                 "compacts a cluster's history, and checks a file does nothing",
	"TestEtcdNamesEveryTest":             "checks these lists",
	"TestRecordCacheBound":               "the decoded-record cache alone, no store",
	"TestRecordCacheOptions":             "the cache bounds Open sets, whatever the backend",
	"TestRefused":                        "the store's error values alone, no store",
	"TestChangeHeadKeptByTheWriter":      "only a bbolt file's head is kept in memory, and it reopens a file",
}

// TestEtcdNamesEveryTest: a new test of the store runs on etcd too, unless it says why not.
func TestEtcdNamesEveryTest(t *testing.T) {
	onEtcd := map[string]bool{}
	for _, tc := range etcdTests {
		onEtcd[tc.name] = true
	}
	files, err := filepath.Glob("*_test.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv != nil || !strings.HasPrefix(fn.Name.Name, "Test") || fn.Name.Name == "TestMain" {
				continue
			}
			_, skipped := bboltOnly[fn.Name.Name]
			if onEtcd[fn.Name.Name] == skipped {
				t.Errorf("%s: %s is named in neither etcdTests nor bboltOnly, or in both", name, fn.Name.Name)
			}
		}
	}
}

// testNotAFile: on another backend than a bbolt file, what only a file has fails as ErrNotFile; a
// cluster node's store has the size of its copy.
func testNotAFile(t *testing.T) {
	db := mustOpenDB(t)
	if _, err := db.Backup(ctx, io.Discard); !errors.Is(err, ErrNotFile) {
		t.Errorf("Backup = %v, want ErrNotFile", err)
	}
	size, err := db.FileSize()
	if onCluster(t) && (err != nil || size == 0) {
		t.Errorf("FileSize of a node's copy = %d, %v", size, err)
	}
	if !onCluster(t) && !errors.Is(err, ErrNotFile) {
		t.Errorf("FileSize = %v, want ErrNotFile", err)
	}
}
