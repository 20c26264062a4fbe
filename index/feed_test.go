package index

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/calendard/calendard/storage"
)

// logStore is a change log in memory; the feed reads nothing else of it in these tests.
type logStore struct {
	FeedStore
	log []storage.Change
}

func (s logStore) Changes(_ context.Context, after uint64, limit int) ([]storage.Change, error) {
	var out []storage.Change
	for _, c := range s.log {
		if c.Seq > after && len(out) < limit {
			out = append(out, c)
		}
	}
	return out, nil
}

func TestChangedDocs(t *testing.T) {
	ev := func(seq, id uint64) storage.Change { return storage.Change{Seq: seq, Kind: storage.DocEvent, ID: id} }
	db := logStore{log: []storage.Change{ev(1, 10), ev(2, 11), ev(3, 10), ev(4, 12), ev(5, 13), ev(6, 11)}}
	doc := func(id, seq uint64) FeedDoc { return FeedDoc{storage.Doc{Kind: storage.DocEvent, ID: id}, seq} }
	tests := []struct {
		name     string
		r        FeedRange
		limit    int
		want     []FeedDoc
		wantNext uint64
		wantMore bool
	}{
		{"everything, each document once at its newest entry", FeedRange{Page: 100}, 10,
			[]FeedDoc{doc(10, 3), doc(11, 6), doc(12, 4), doc(13, 5)}, 6, false},
		{"the limit counts documents, not entries", FeedRange{Page: 100}, 2,
			[]FeedDoc{doc(10, 3), doc(11, 2)}, 3, true},
		{"small pages read the same", FeedRange{Page: 1}, 10,
			[]FeedDoc{doc(10, 3), doc(11, 6), doc(12, 4), doc(13, 5)}, 6, false},
		{"after a cursor", FeedRange{Since: 4, Page: 100}, 10, []FeedDoc{doc(13, 5), doc(11, 6)}, 6, false},
		{"up to a bound: what follows it is not more", FeedRange{Since: 1, UpTo: 4, Page: 100}, 10,
			[]FeedDoc{doc(11, 2), doc(10, 3), doc(12, 4)}, 4, false},
		{"up to a bound, limit reached inside it", FeedRange{Since: 1, UpTo: 4, Page: 100}, 1,
			[]FeedDoc{doc(11, 2)}, 2, true},
		{"nothing after the head", FeedRange{Since: 6, Page: 100}, 10, nil, 6, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, next, more, err := ChangedDocs(context.Background(), db, tc.r, tc.limit)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" || next != tc.wantNext || more != tc.wantMore {
				t.Errorf("next %d more %v (want %d %v), docs (-want +got):\n%s", next, more, tc.wantNext, tc.wantMore, diff)
			}
		})
	}
}
