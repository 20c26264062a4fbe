package index

import (
	"maps"
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"unsafe"

	"github.com/RoaringBitmap/roaring/v2/roaring64"
)

// members is a set of event IDs that rows are tested against: the records a search matched
// (*roaring64.Bitmap), or the events linked to a venue, organizer, term or series (eventIDs).
type members interface{ Contains(id uint64) bool }

// allows reports whether id is in one of the sets of every test.
func allows(tests [][]members, id uint64) bool {
	for _, sets := range tests {
		if !slices.ContainsFunc(sets, func(s members) bool { return s.Contains(id) }) {
			return false
		}
	}
	return true
}

// eventIDs is a set of event IDs, in order: the events linked to one venue, organizer, term or
// series. A compressed bitmap per set cost far more: a venue's or an organizer's few events are
// spread over the whole ID space, and a bitmap gives each run of 65,536 IDs its own container, which
// at 1M events made 2.2M objects and 200 MB, most of what the garbage collector had to mark
// (docs/BENCHMARKS.md, section "Lists, per query").
type eventIDs []uint64

// Contains reports whether id is in s.
func (s eventIDs) Contains(id uint64) bool {
	_, found := slices.BinarySearch(s, id)
	return found
}

// idSet is a set of record IDs: a bitset for the IDs below denseIDs, which come from one dense
// sequence, so a bit per ID is smaller and far faster to fill and probe than a map; and a map for the
// others, which are few and far apart: the IDs a store mirroring a site hands out itself, from
// storage.MirrorIDBase (2^40) up, and whatever a client names in a filter. A bit per ID up to those
// would be 128 GiB. A nil *idSet means "no restriction"; its methods but add take it as empty.
type idSet struct {
	words []uint64
	far   map[uint64]struct{}
}

// denseIDs bounds the IDs an idSet keeps as bits: a bitset of 8 MiB at most.
const denseIDs = 1 << 26

// bitsFor is an empty idSet with room for the bits of IDs up to last, below denseIDs.
func bitsFor(last uint64) *idSet {
	return &idSet{words: make([]uint64, min(last, denseIDs-1)/64+1)}
}

func (s *idSet) add(id uint64) {
	if id >= denseIDs {
		if s.far == nil {
			s.far = map[uint64]struct{}{}
		}
		s.far[id] = struct{}{}
		return
	}
	w := int(id / 64)
	if w >= len(s.words) {
		s.words = append(s.words, make([]uint64, w+1-len(s.words))...)
	}
	s.words[w] |= 1 << (id % 64)
}

// remove takes id out of s.
func (s *idSet) remove(id uint64) {
	switch w := int(id / 64); {
	case s == nil:
	case id >= denseIDs:
		delete(s.far, id)
	case w < len(s.words):
		s.words[w] &^= 1 << (id % 64)
	}
}

// Contains reports whether id is in s; it makes an idSet a test's members too.
func (s *idSet) Contains(id uint64) bool {
	if s == nil {
		return false
	}
	if id >= denseIDs {
		_, ok := s.far[id]
		return ok
	}
	w := int(id / 64)
	return w < len(s.words) && s.words[w]&(1<<(id%64)) != 0
}

// count counts the IDs of ids that are in s. The bits are added rather than tested: whether a linked
// event matched is a coin toss the branch predictor loses, which made facet counting by set half its
// cost at 1M events (docs/BENCHMARKS.md, section "Facets").
func (s *idSet) count(ids []uint64) int {
	n := 0
	for _, id := range ids {
		if w := id / 64; w < uint64(len(s.words)) {
			n += int(s.words[w] >> (id % 64) & 1)
		} else if id >= denseIDs && s.Contains(id) {
			n++
		}
	}
	return n
}

// countNew counts the IDs of ids that are in s and not in seen, and adds every ID of ids to seen: over
// several lists with the same seen, it counts their union's members in s once each. Bits are added
// rather than tested, as count does.
func (s *idSet) countNew(ids []uint64, seen *idSet) int {
	n := 0
	for _, id := range ids {
		if w := id / 64; w < uint64(len(s.words)) && w < uint64(len(seen.words)) {
			fresh := ^seen.words[w] >> (id % 64) & 1
			seen.words[w] |= 1 << (id % 64)
			n += int(fresh & (s.words[w] >> (id % 64)))
		} else if !seen.Contains(id) {
			seen.add(id)
			if s.Contains(id) {
				n++
			}
		}
	}
	return n
}

// ids returns the IDs in s, in order.
func (s *idSet) ids() []uint64 {
	if s == nil {
		return nil
	}
	var out []uint64
	for w, word := range s.words {
		for ; word != 0; word &= word - 1 {
			out = append(out, uint64(w)*64+uint64(bits.TrailingZeros64(word)))
		}
	}
	far := slices.Sorted(maps.Keys(s.far))
	return append(out, far...)
}

// bytes is about the memory s holds.
func (s *idSet) bytes() int {
	if s == nil {
		return 0
	}
	return len(s.words)*8 + len(s.far)*16
}

// bitsOf turns a compressed set into an idSet for a scan to probe, nil staying nil.
func bitsOf(set *roaring64.Bitmap) *idSet {
	if set == nil {
		return nil
	}
	out := &idSet{}
	if n := set.Rank(denseIDs - 1); n > 0 {
		// Room for the dense IDs only: those above go to the map.
		last, _ := set.Select(n - 1)
		out = bitsFor(last)
	}
	var buf [256]uint64 // a batch at a time
	for it := set.ManyIterator(); ; {
		n := it.NextMany(buf[:])
		if n == 0 {
			return out
		}
		for _, id := range buf[:n] {
			out.add(id)
		}
	}
}

func setOf(ids []uint64) *idSet {
	if len(ids) == 0 {
		return nil
	}
	s := &idSet{}
	for _, id := range ids {
		s.add(id)
	}
	return s
}

// bitsOfSets returns the union of sets as a bitset.
func bitsOfSets(sets []eventIDs) *idSet {
	out := &idSet{}
	for _, set := range sets {
		for _, id := range set {
			out.add(id)
		}
	}
	return out
}

// linked returns the events linked to any of ids in m, as a set to test rows against; nil when ids
// is empty (no restriction).
func linked(m map[uint64]eventIDs, ids []uint64) *idSet {
	if len(ids) == 0 {
		return nil
	}
	sets := make([]eventIDs, len(ids))
	for i, id := range ids {
		sets[i] = m[id]
	}
	return bitsOfSets(sets)
}

// size is how many IDs sets hold, counting one held by two of them twice.
func size(sets []eventIDs) int {
	n := 0
	for _, s := range sets {
		n += len(s)
	}
	return n
}

// union returns the IDs of sets, in order, each once.
func union(sets []eventIDs) []uint64 {
	if len(sets) == 1 {
		return sets[0]
	}
	return bitsOfSets(sets).ids()
}

// tester returns the union of sets as a set to test probes IDs against: the set itself, probed by
// binary search, when there is one and probes are few; else a bitset, which costs a pass over
// the IDs of sets but answers each probe at once. Past one probe per bitsetProbes IDs the pass
// costs less than the searches.
func tester(sets []eventIDs, probes int) members {
	if len(sets) == 1 && probes*bitsetProbes < len(sets[0]) {
		return sets[0]
	}
	return bitsOfSets(sets)
}

const bitsetProbes = 16

// keyMerge walks the union of ordered lists of keys in order, each key once (an event in several of a
// filter's terms is listed once): a heap of the lists by their first key. The heap is kept here
// rather than by container/heap, whose calls through an interface cost a category list with
// subcategories 15 % of its time at 1M events (docs/BENCHMARKS.md, section "Lists, per query").
type keyMerge [][]rowKey

func newKeyMerge(lists [][]rowKey) *keyMerge {
	m := make(keyMerge, 0, len(lists))
	for _, keys := range lists {
		if len(keys) > 0 {
			m = append(m, keys)
		}
	}
	for i := len(m)/2 - 1; i >= 0; i-- {
		m.down(i)
	}
	return &m
}

// next returns the smallest key not returned yet, or false when there is none.
func (m *keyMerge) next() (rowKey, bool) {
	h := *m
	if len(h) == 0 {
		return rowKey{}, false
	}
	k := h[0][0]
	for len(h) > 0 && h[0][0] == k {
		if h[0] = h[0][1:]; len(h[0]) == 0 {
			h[0] = h[len(h)-1]
			h = h[:len(h)-1]
		}
		h.down(0)
	}
	*m = h
	return k, true
}

// down moves the list at i down the heap to its place among its descendants.
func (m keyMerge) down(i int) {
	for {
		child := 2*i + 1
		if child >= len(m) {
			return
		}
		if right := child + 1; right < len(m) && compareKeys(m[right][0], m[child][0]) < 0 {
			child = right
		}
		if compareKeys(m[child][0], m[i][0]) >= 0 {
			return
		}
		m[i], m[child] = m[child], m[i]
		i = child
	}
}

// unionFrom is how many keys the windows of a filter's terms must hold together for the filter to
// take the terms' union (termUnion): a union is built over the terms' whole lists, and below this
// merging the windows (a day of a category) costs less than building it. A variable so that the
// tests' small calendars take both ways.
var unionFrom = 10_000

// termUnion is the union of several terms' listed keys and linked events: one list, which a window
// counts by two binary searches, and one set, which a test probes once. Counting a window of the
// terms' own lists meant merging them key by key, milliseconds a list at 1M events where one tag
// costs tens of microseconds. A union is built for one generation of its projection (gen) and
// remembered with the search matches (lang.union). Its set is a bitset (idSet), which a test probes
// at the cost of one load, a third of a compressed bitmap's cost (docs/BENCHMARKS.md, section
// "Lists, per query").
type termUnion struct {
	gen  uint64
	keys []rowKey
	set  *idSet
}

// union builds the union of the terms ids.
func (p *projection) union(ids []uint64) *termUnion {
	lists := make([][]rowKey, len(ids))
	sets := make([]eventIDs, len(ids))
	n := 0
	for i, id := range ids {
		lists[i], sets[i] = p.termListed[id], p.termEvents[id]
		n += len(lists[i])
	}
	u := &termUnion{gen: p.gen, keys: make([]rowKey, 0, n), set: bitsOfSets(sets)}
	m := newKeyMerge(lists)
	for k, ok := m.next(); ok; k, ok = m.next() {
		u.keys = append(u.keys, k)
	}
	u.keys = slices.Clip(u.keys)
	return u
}

// filter is the union as the filter of a list over window w.
func (u *termUnion) filter(w window) keyFilter {
	keys := w.keys(u.keys)
	return keyFilter{lists: [][]rowKey{keys}, sets: []members{u.set}, size: len(keys), disjoint: true}
}

// size is what the union counts against the limit of the cache that keeps it.
func (u *termUnion) size() int {
	return len(u.keys)*int(unsafe.Sizeof(rowKey{})) + u.set.bytes()
}

// union returns the union of the terms ids (two or more, in order) in l's projection: the one
// remembered for its generation, or a new one, remembered. l.mu is held.
func (l *lang) union(ids []uint64) *termUnion {
	var b strings.Builder
	b.WriteString(string(l.code))
	for _, id := range ids {
		b.WriteByte(',')
		b.WriteString(strconv.FormatUint(id, 10))
	}
	key := b.String()
	if u := l.texts.union(key, l.proj.gen); u != nil {
		return u
	}
	u := l.proj.union(ids)
	l.texts.putUnion(key, u)
	return u
}
