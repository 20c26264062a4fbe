package index

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"maps"
	"math"
	"math/bits"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"unsafe"

	"go.uber.org/zap"

	"github.com/calendard/calendard/storage"
)

// projectionFormat versions a saved projection: its layout, and what a row holds as eventRowOf and
// placeRowOf derive it from a record. Bump it on any change to either; a file of another version is
// not read, and the next start scans the store instead. TestProjectionFormatPinned fails when a row's
// fields change and the pinned layout is not updated with it.
const projectionFormat = 7

// projectionMagic opens every saved projection, so that no other file is mistaken for one.
var projectionMagic = []byte("calendard projection\n")

// errProjection reports a saved projection that cannot be trusted: truncated, corrupt, or not what
// its header says.
var errProjection = errors.New("index: saved projection unreadable")

// crcTable is CRC-32C, which the CPU computes in hardware: checking the largest file costs a few
// milliseconds.
var crcTable = crc32.MakeTable(crc32.Castagnoli)

// projectionPath is where the projection of code is saved: in the index directory, beside its Bleve
// index, because it is derived data a node rebuilds like the index.
func projectionPath(dir string, code storage.Lang) string {
	return filepath.Join(dir, string(code)+".projection")
}

// save writes every language's projection to its file, as of change-log position at: each holds at
// least the entries up to at (they were applied before at was read), so replaying the log from at
// brings it up to the store. Checkpoint calls it with the position it stores in the Bleve indexes, so
// a restart replays both from one point. A projection is encoded under its read lock, which holds
// back the syncer's next apply to that language for as long, and written without it.
func (ix *Index) save(at uint64) error {
	ix.saving.Lock()
	defer ix.saving.Unlock()
	// Files that hold this version already are not written again: a node without writes would
	// otherwise rewrite every projection at each scheduled checkpoint, and at start-up.
	v := Version{at, ix.Version().Repairs}
	if v == ix.saved {
		return nil
	}
	var buf []byte
	for code, l := range ix.langs {
		l.mu.RLock()
		buf = l.proj.encode(buf[:0], code, at)
		l.mu.RUnlock()
		if err := writeFileAtomic(projectionPath(ix.dir, code), buf); err != nil {
			return fmt.Errorf("index: save projection %s: %w", code, err)
		}
	}
	ix.saved = v
	return nil
}

// loadSaved reads every language's saved projection and returns the position to replay the change
// log from: the oldest a projection or a Bleve index holds. It reports false, leaving the projections
// empty, as soon as one language has none it can trust: missing, unreadable (decodeProjection), or
// saved at a position the change log cannot bring up to the store (unreplayable). The store is then
// scanned, which costs what a start cost before projections were saved, and is always right.
//
// A projection read holds its arrays in its file's mapping (mapFile), which stays mapped for the life
// of the process: a reader may hold a slice of a projection past its lock, and past the projection's
// replacement by a rebuild, and nothing tells when the last one is gone. That is one mapping per
// language per start; the mappings of projections not used are unmapped here.
func (ix *Index) loadSaved(ctx context.Context, check *replayCheck) (uint64, bool) {
	type saved struct {
		proj  *projection
		at    uint64
		err   error
		size  int
		unmap func()
	}
	got := make(map[storage.Lang]*saved, len(ix.langs))
	for code := range ix.langs {
		got[code] = &saved{}
	}
	// The languages decode side by side: decoding is the whole cost.
	var wg sync.WaitGroup
	for code, s := range got {
		wg.Go(func() {
			var b []byte
			if b, s.unmap, s.err = mapFile(projectionPath(ix.dir, code)); s.err == nil {
				s.size = len(b)
				s.proj, s.at, s.err = decodeProjection(b, code)
			}
		})
	}
	wg.Wait()
	unused := func() {
		for _, s := range got {
			if s.unmap != nil {
				s.unmap()
			}
		}
	}
	from, same := check.head, true
	for code, s := range got {
		why := ""
		if s.err == nil {
			why, s.err = check.unreplayable(ctx, s.at)
		}
		switch {
		case errors.Is(s.err, fs.ErrNotExist):
			ix.log.Info("no saved projection: scanning the store", zap.String("lang", string(code)))
			unused()
			return 0, false
		case s.err != nil:
			ix.log.Warn("saved projection unusable: scanning the store", zap.String("lang", string(code)), zap.Error(s.err))
			unused()
			return 0, false
		case why != "":
			ix.log.Info("saved projection is "+why+": scanning the store", zap.String("lang", string(code)))
			unused()
			return 0, false
		}
		from = min(from, s.at, ix.langs[code].checkpoint)
		same = same && s.at == got[storage.Langs[0]].at
	}
	for code, s := range got {
		ix.langs[code].proj = s.proj
		ix.mapped += int64(s.size)
	}
	if same {
		ix.saved = Version{Applied: got[storage.Langs[0]].at}
	}
	return from, true
}

// encode appends p, the projection of code as of change-log position at, to buf: a header (magic,
// format, mapping version, language, position), the event rows in their order, their links and refs
// (appendRefs), the lists of keys and sets of linked events (appendKeys), the venues and organizers
// by ID, and a CRC-32C of all that. The position is the one the file is replayed from; p may already
// hold later changes, which replaying applies again harmlessly.
//
// The rows, the table of refs, the links and the lists are saved as they lie in memory (appendArray),
// each at an offset from the file's start that is a multiple of 8, so that decoding holds them where
// they lie in the file rather than build them again (decodeProjection). A file is therefore read
// only on a host of the byte order that wrote it: little-endian (decodeProjection).
func (p *projection) encode(buf []byte, code storage.Lang, at uint64) []byte {
	start := len(buf)
	buf = append(buf, projectionMagic...)
	buf = binary.AppendUvarint(buf, projectionFormat)
	buf = appendString(buf, mappingVersion)
	buf = appendString(buf, string(code))
	// The position is fixed-width so that a file's arrays keep their offsets whatever it says.
	buf = binary.LittleEndian.AppendUint64(buf, at)
	// Room for the rows, refs and links at once: grown by appends, the buffer was copied over and over.
	buf = slices.Grow(buf, len(p.events)*eventRowSize+len(p.refs.slots)*(refSize+1)+8*len(p.linkIDs)+64)
	buf = binary.AppendUvarint(buf, uint64(len(p.events)))
	buf = appendArray(buf, start, p.events)
	buf = p.appendRefs(buf, start)
	buf = p.appendKeys(buf, start)
	for _, places := range []map[uint64]*placeRow{p.venues, p.orgs} {
		buf = binary.AppendUvarint(buf, uint64(len(places)))
		for _, id := range slices.Sorted(maps.Keys(places)) {
			r := places[id]
			buf = binary.AppendUvarint(buf, r.id)
			buf = binary.AppendUvarint(buf, r.author)
			buf = binary.AppendVarint(buf, r.date)
			buf = appendString(buf, string(r.status))
			buf = appendString(buf, string(r.trashed))
		}
	}
	return binary.LittleEndian.AppendUint32(buf, crc32.Checksum(buf[start:], crcTable))
}

func appendString(buf []byte, s string) []byte {
	return append(binary.AppendUvarint(buf, uint64(len(s))), s...)
}

// The sizes of an event row and a ref, which a file holds as they lie in memory.
const (
	eventRowSize = int(unsafe.Sizeof(eventRow{}))
	refSize      = int(unsafe.Sizeof(eventRef{}))
)

// The offsets in a row of its one-byte fields, which decoding checks before reading the row: a state
// must name a status, and a bool must be 0 or 1, or Go's code would read it as neither true nor false.
var rowBoolsAt = [...]uintptr{unsafe.Offsetof(eventRow{}.hidden), unsafe.Offsetof(eventRow{}.featured),
	unsafe.Offsetof(eventRow{}.hasGeo), unsafe.Offsetof(eventRow{}.sharesText)}

const (
	rowStatusAt  = unsafe.Offsetof(eventRow{}.status)
	rowTrashedAt = unsafe.Offsetof(eventRow{}.trashed)
	refOffAt     = unsafe.Offsetof(eventRef{}.off)
)

// A ref's flags in a file: what its event's row says that its keys depend on (readRefs).
const (
	refListed = 1 << iota
	refSharesText
	refFlagsKnown = refListed | refSharesText
)

// appendRefs appends p's links, in the order of the refs, then the table of refs as it lies in memory
// (eventRefs: its size, homes, whether it holds ID 0, and hash multiplier first), each span naming its
// links in that order, then a byte of flags per slot of the table: what the row of its event says that
// its keys depend on, so that decoding checks the keys in one pass over the refs (readRefs).
func (p *projection) appendRefs(buf []byte, start int) []byte {
	t := &p.refs
	links := 0
	for r := range t.all() {
		links += int(r.orgs + r.terms)
	}
	buf = binary.AppendUvarint(buf, uint64(links))
	buf = pad(buf, start)
	for r := range t.all() {
		for _, id := range p.linkIDs[r.off : r.off+r.orgs+r.terms] {
			buf = binary.LittleEndian.AppendUint64(buf, id)
		}
	}
	buf = binary.AppendUvarint(buf, uint64(len(t.slots)))
	buf = binary.AppendUvarint(buf, uint64(t.homes))
	hasZero := byte(0)
	if t.hasZero {
		hasZero = 1
	}
	buf = append(buf, hasZero)
	buf = binary.LittleEndian.AppendUint64(buf, t.mult)
	buf = pad(buf, start)
	at := len(buf)
	buf = appendArray(buf, start, t.slots)
	var off uint32
	for i := range t.slots {
		if t.used(i) {
			binary.LittleEndian.PutUint32(buf[at+i*refSize+int(refOffAt):], off)
			off += t.slots[i].orgs + t.slots[i].terms
		}
	}
	flags := len(buf)
	buf = append(buf, make([]byte, len(t.slots))...)
	for i := range p.events {
		r := &p.events[i]
		var f byte
		if rowListed(r) {
			f |= refListed
		}
		if r.sharesText {
			f |= refSharesText
		}
		if slot, ok := t.seek(r.id); ok && f != 0 {
			buf[flags+slot] = f
		}
	}
	return buf
}

// decodeProjection reads a projection encode wrote for code, and returns it with the position it is
// to be replayed from. It returns errProjection for a file that is truncated, corrupt (its checksum,
// or parts that contradict each other), of another format or mapping version, or of another language:
// such a file is never trusted, whatever part of it reads well.
//
// The rows, the refs, the links and the lists of keys are not copied: the projection holds them in b,
// which must stay readable for as long as the projection is read, and be writable (mapFile): a live
// update writes where they lie. Every one of them is checked in a pass that only reads: the rows'
// order and fields, the refs' places in their table, and what each list holds against the rows and
// refs, through sums of hashes (keySums).
func decodeProjection(b []byte, code storage.Lang) (*projection, uint64, error) {
	if len(b) < len(projectionMagic)+4 || string(b[:len(projectionMagic)]) != string(projectionMagic) {
		return nil, 0, fmt.Errorf("%w: not a projection", errProjection)
	}
	if !littleEndian {
		return nil, 0, fmt.Errorf("%w: saved in memory's order, read on little-endian hosts only", errProjection)
	}
	body := b[:len(b)-4]
	if crc32.Checksum(body, crcTable) != binary.LittleEndian.Uint32(b[len(body):]) {
		return nil, 0, fmt.Errorf("%w: checksum mismatch", errProjection)
	}
	if uintptr(unsafe.Pointer(unsafe.SliceData(body)))%8 != 0 {
		// The arrays lie at offsets that are multiples of 8 from the file's start (appendArray).
		body = alignedCopy(body)
	}
	d := decoder{b: body[len(projectionMagic):]}
	if v := d.uvarint(); v != projectionFormat {
		return nil, 0, fmt.Errorf("%w: format %d, want %d", errProjection, v, projectionFormat)
	}
	if v := d.string(); v != mappingVersion {
		return nil, 0, fmt.Errorf("%w: mapping version %q, want %q", errProjection, v, mappingVersion)
	}
	if v := d.string(); v != string(code) {
		return nil, 0, fmt.Errorf("%w: language %q, want %q", errProjection, v, code)
	}
	at := d.u64()
	p := newProjection()
	var want keySums
	rows := p.readRows(&d, &want)
	if d.err == nil {
		p.readRefs(&d, rows, &want)
	}
	if d.err == nil {
		p.readKeys(&d, &want)
	}
	for _, places := range []map[uint64]*placeRow{p.venues, p.orgs} {
		for n := d.count(); len(places) < n && d.err == nil; {
			r := &placeRow{id: d.uvarint(), author: d.uvarint(), date: d.varint(), status: storage.Status(d.string()),
				trashed: storage.Status(d.string())}
			if places[r.id] != nil {
				d.fail("place listed twice")
			}
			places[r.id] = r
		}
	}
	if d.err == nil && len(d.b) > 0 {
		d.fail("trailing bytes")
	}
	if d.err != nil {
		return nil, 0, d.err
	}
	return p, at, nil
}

// littleEndian reports whether this host keeps numbers least significant byte first, as the hosts
// that write the files do (encode).
var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// alignedCopy copies b to memory whose address is a multiple of 8.
func alignedCopy(b []byte) []byte {
	words := make([]uint64, (len(b)+7)/8)
	out := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(words))), len(b))
	copy(out, b)
	return out
}

// keySums are, for each kind of list of keys and set of linked events, the sum of a hash of each
// (list, entry) pair it holds (listHash): decoding sums what the lists hold, and what they ought to
// hold from the rows and refs (readRows, readRefs), and rejects a file where they differ (readKeys).
// Lists that a random change made differ have equal sums by a chance of about 2^-64, where a file
// changed on the disk passes its checksum by one of 2^-32; no list's entry is looked up in the rows,
// which would read them at random.
type keySums struct {
	termListed, venueListed, placeListed, cells uint64
	// sets are those of linkedSets, in its order.
	sets [5]uint64
}

// listHash is the hash of an entry, its number member (keyMember, or an event's ID), in the list of
// set: one round of mixing, which a list's every entry costs.
func listHash(member, set uint64) uint64 { return mix64(member + set*0x9e3779b97f4a7c15) }

// keyMember is the number of a row's key in a list: its ID and start in one, which listHash mixes.
func keyMember(id uint64, start int64) uint64 { return id ^ bits.RotateLeft64(uint64(start), 32) }

// pointHash is the hash of a position as the key of a list, the same for 0 and -0, which are one key
// of a map.
func pointHash(at point) uint64 {
	return pairHash(math.Float64bits(at.lat+0), int64(math.Float64bits(at.lng+0)))
}

func cellHash(c cell) uint64 { return pairHash(uint64(uint32(c.lat)), int64(c.lng)) }

// appendKeys appends what rebuildKeys derives from the rows and their links: each term's, venue's,
// position's and cell's listed keys, and the sets of linked events. Rebuilding them took 2.9 s of a
// restart's 5 s of CPU at 1M events (many lists grown by append, through as many map lookups per row), where
// a restart holds them where the file lies (readLists). A projection whose keys are not built
// (keysReady) has none to save: a byte says whether they follow.
func (p *projection) appendKeys(buf []byte, start int) []byte {
	if !p.keysReady {
		return append(buf, 0)
	}
	buf = append(buf, 1)
	buf = appendLists(buf, start, p.termListed, binary.AppendUvarint)
	buf = appendLists(buf, start, p.venueListed, binary.AppendUvarint)
	buf = appendLists(buf, start, p.placeListed, appendPoint)
	cells := make(map[cell][]rowKey, len(p.placeCells))
	for c, in := range p.placeCells {
		cells[c] = in.keys
	}
	buf = appendLists(buf, start, cells, appendCell)
	for _, sets := range p.linkedSets() {
		buf = appendLists(buf, start, *sets, binary.AppendUvarint)
	}
	return buf
}

// readKeys reads what appendKeys wrote, or builds the keys when none were saved, and fails d unless
// the lists hold what the rows and refs say, want (keySums).
func (p *projection) readKeys(d *decoder, want *keySums) {
	if d.byte() == 0 {
		p.rebuildKeys()
		return
	}
	p.listRows()
	id := func(id uint64) uint64 { return id }
	var got keySums
	key := func(k rowKey) uint64 { return keyMember(k.id, k.startLocal) }
	keyBefore := func(a, b rowKey) bool { return compareKeys(a, b) < 0 }
	idBefore := func(a, b uint64) bool { return a < b }
	p.termListed, got.termListed = readLists[uint64, []rowKey](d, (*decoder).uvarint, id, key, keyBefore)
	p.venueListed, got.venueListed = readLists[uint64, []rowKey](d, (*decoder).uvarint, id, key, keyBefore)
	p.placeListed, got.placeListed = readLists[point, []rowKey](d, (*decoder).point, pointHash, key, keyBefore)
	cells, sum := readLists[cell, []rowKey](d, (*decoder).cell, cellHash, key, keyBefore)
	got.cells = sum
	for i, sets := range p.linkedSets() {
		*sets, got.sets[i] = readLists[uint64, eventIDs](d, (*decoder).uvarint, id, id, idBefore)
	}
	if d.err == nil && got != *want {
		d.fail("lists of keys do not match the rows")
	}
	if d.err == nil {
		p.groupCells(cells, d)
	}
}

// groupCells fills placeCells from the saved keys of each cell and the positions of placeListed, with
// a map lookup per position, where buildCells derives them from the rows with one per row. It fails d
// for a cell without positions, or a position without its cell.
func (p *projection) groupCells(keys map[cell][]rowKey, d *decoder) {
	p.placeCells = make(map[cell]*placeCell, len(keys))
	for c, in := range keys {
		p.placeCells[c] = &placeCell{keys: in}
	}
	for at := range p.placeListed {
		c := p.placeCells[cellOf(at)]
		if c == nil {
			d.fail("a position outside the cells")
			return
		}
		c.points = append(c.points, at)
	}
	for _, c := range p.placeCells {
		if len(c.points) == 0 {
			d.fail("a cell without positions")
			return
		}
	}
}

// appendLists appends the ordered lists of m: how many entries in all, then every list's entries as
// they lie in memory (appendArray), then how many lists, and each list's key and length. The lists
// come in the map's order: a file's bytes may differ from one save to the next, and read back the
// same.
func appendLists[K comparable, S ~[]E, E any](buf []byte, start int, m map[K]S, appendKey func([]byte, K) []byte) []byte {
	keys := make([]K, 0, len(m))
	total := 0
	for key, s := range m {
		keys = append(keys, key)
		total += len(s)
	}
	buf = binary.AppendUvarint(buf, uint64(total))
	buf = pad(buf, start)
	for _, key := range keys {
		buf = append(buf, bytesOf(m[key])...)
	}
	buf = binary.AppendUvarint(buf, uint64(len(keys)))
	for _, key := range keys {
		buf = appendKey(buf, key)
		buf = binary.AppendUvarint(buf, uint64(len(m[key])))
	}
	return buf
}

// readLists reads lists appendLists wrote, each key once, none empty, each strictly ascending by
// before, and returns them with the sum of listHash over their entries: member gives an entry's
// member, setHash a key's set. The lists are held where they lie in d (array), each capped at its
// length, so that a later insert into one copies it rather than overwrite the next.
func readLists[K comparable, S ~[]E, E any](d *decoder, readKey func(*decoder) K, setHash func(K) uint64,
	member func(E) uint64, before func(a, b E) bool) (map[K]S, uint64) {
	all := array[E](d, d.count())
	n := d.count()
	m := make(map[K]S, n)
	var sum uint64
	for range n {
		// A list's size counts entries of all, read before: not the bytes left, which the last lists of
		// a file may have fewer of than entries.
		key, size := readKey(d), d.uvarint()
		if _, twice := m[key]; twice || size == 0 || size > uint64(len(all)) {
			d.fail("lists of keys malformed")
			return nil, 0
		}
		list := all[:size:size]
		all = all[size:]
		set := setHash(key)
		for i, e := range list {
			if i > 0 && !before(list[i-1], e) {
				d.fail("list of keys out of order")
				return nil, 0
			}
			sum += listHash(member(e), set)
		}
		m[key] = S(list)
	}
	if len(all) > 0 {
		d.fail("lists of keys shorter than said")
		return nil, 0
	}
	return m, sum
}

func appendPoint(buf []byte, at point) []byte {
	buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(at.lat))
	return binary.LittleEndian.AppendUint64(buf, math.Float64bits(at.lng))
}

func appendCell(buf []byte, c cell) []byte {
	return binary.AppendVarint(binary.AppendVarint(buf, int64(c.lat)), int64(c.lng))
}

// cell reads a cell appendCell wrote.
func (d *decoder) cell() cell {
	lat, lng := d.varint(), d.varint()
	if lat != int64(int32(lat)) || lng != int64(int32(lng)) {
		d.fail("cell out of range")
	}
	return cell{int32(lat), int32(lng)}
}

// point reads a position appendPoint wrote. NaN is no position (venues refuse it) and, as a map key,
// would never be found again.
func (d *decoder) point() point {
	at := point{math.Float64frombits(d.u64()), math.Float64frombits(d.u64())}
	if math.IsNaN(at.lat) || math.IsNaN(at.lng) {
		d.fail("position not a number")
	}
	return at
}

// rowSums are the sums of the pairs' hashes (pairHash) of all rows, of the listed rows and of those
// sharing their parent's text, which the refs must agree with (readRefs).
type rowSums struct{ all, listed, sharesText uint64 }

// readRows reads the event rows encode wrote, where they lie, and fails d for rows out of order, of
// an unknown status, with a bool neither true nor false, or at a position that is not a number
// (venues refuse one). It returns their rowSums, and adds to want what their keys ought to sum to.
func (p *projection) readRows(d *decoder, want *keySums) (sums rowSums) {
	b := d.aligned(d.count(), eventRowSize)
	p.events = view[eventRow](b)
	for i := range p.events {
		e := b[i*eventRowSize : (i+1)*eventRowSize]
		if int(e[rowStatusAt]) >= len(statuses) || int(e[rowTrashedAt]) >= len(statuses) {
			d.fail("unknown status")
			return
		}
		for _, at := range rowBoolsAt {
			if e[at] > 1 {
				d.fail("a bool neither true nor false")
				return
			}
		}
		r := &p.events[i]
		switch {
		case math.IsNaN(r.lat) || math.IsNaN(r.lng):
			d.fail("position not a number")
			return
		case i > 0 && compareRows(&p.events[i-1], r) >= 0:
			d.fail("event rows out of order")
			return
		}
		h := pairHash(r.id, r.startLocal)
		sums.all += h
		if r.venue != 0 {
			want.sets[0] += listHash(r.id, r.venue)
		}
		if r.sharesText {
			sums.sharesText += h
		}
		if !rowListed(r) {
			continue
		}
		sums.listed += h
		k := keyMember(r.id, r.startLocal)
		if r.venue != 0 {
			want.venueListed += listHash(k, r.venue)
		}
		if r.hasGeo {
			at := point{r.lat, r.lng}
			want.placeListed += listHash(k, pointHash(at))
			want.cells += listHash(k, cellHash(cellOf(at)))
		}
	}
	return sums
}

// readRefs reads what appendRefs wrote, where it lies, and fails d unless the refs name the rows'
// events at the rows' starts, each at its place in the table (eventRefs: in the order of their
// hashes, so no ID comes twice, each at its home or right after the entry before it), with flags
// that say what their rows say, and links that follow one another through the links' IDs (any past
// the last are garbage, as setRef leaves). A ref
// holds its event's ID and start rather than its row's position, whose row would be read at random:
// the sums of their pairs' hashes over the rows and the refs must agree (rowSums), and those over
// the listed rows and the rows sharing their text with the refs flagged so. It adds to want what the
// keys that depend on the links ought to sum to.
func (p *projection) readRefs(d *decoder, rows rowSums, want *keySums) {
	p.linkIDs = array[uint64](d, d.count())
	size, homes := d.count(), d.count()
	hasZero, mult := d.byte(), d.u64()
	switch {
	case d.err != nil:
		return
	case mult%2 == 0:
		d.fail("refs hashed by an even multiplier")
		return
	case hasZero > 1 || homes < 1 || size <= homes:
		d.fail("table of refs malformed")
		return
	}
	t := eventRefs{slots: array[eventRef](d, size), hasZero: hasZero == 1, homes: homes, mult: mult}
	flags := d.take(size)
	if d.err != nil {
		return
	}
	var got rowSums
	var links, last uint64
	var terms, orgs []uint64
	prev := 0
	for i := range t.slots {
		r := &t.slots[i]
		switch {
		case i == 0 && r.id != 0:
			d.fail("table of refs malformed")
			return
		case !t.used(i):
			continue
		case i > 0:
			h := t.hash(r.id)
			if prev > 0 && h <= last {
				d.fail("refs out of order, or an event listed twice")
				return
			}
			if i != max(t.home(h), prev+1) {
				d.fail("a ref out of its place")
				return
			}
			if i-t.home(h) > refsMaxRun {
				d.fail("a ref too far from its home")
				return
			}
			last, prev = h, i
		}
		if uint64(r.off) != links {
			d.fail("links out of order")
			return
		}
		if links += uint64(r.orgs) + uint64(r.terms); links > uint64(len(p.linkIDs)) || links > math.MaxUint32 {
			d.fail("links past the end")
			return
		}
		f := flags[i]
		if f&^refFlagsKnown != 0 {
			d.fail("unknown flags")
			return
		}
		t.n++
		h := pairHash(r.id, r.startLocal)
		got.all += h
		mid := r.off + r.orgs
		orgs = distinct(p.linkIDs[r.off:mid], orgs)
		for _, o := range orgs {
			want.sets[1] += listHash(r.id, o)
		}
		terms = distinct(p.linkIDs[mid:mid+r.terms], terms)
		for _, term := range terms {
			want.sets[2] += listHash(r.id, term)
		}
		if f&refListed != 0 {
			got.listed += h
			k := keyMember(r.id, r.startLocal)
			for _, term := range terms {
				want.termListed += listHash(k, term)
			}
		}
		if r.parent != 0 {
			want.sets[3] += listHash(r.id, r.parent)
		}
		if f&refSharesText != 0 {
			got.sharesText += h
			if r.parent != 0 {
				want.sets[4] += listHash(r.id, r.parent)
			}
		}
	}
	if t.n != len(p.events) || got != rows {
		d.fail("refs do not match the rows")
		return
	}
	p.refs, p.linkGarbage = t, len(p.linkIDs)-int(links)
}

// refsMaxRun bounds how far past its home a saved ref may lie: every lookup of the refs after it walks
// that far. Hashed by a random multiplier, seven eighths full at most, a table of a million refs puts
// one that far by a chance far below one in a billion; a file whose multiplier crowds its refs into
// one run, which would slow every lookup to a walk through them, is not read.
const refsMaxRun = 4096

// distinct returns the IDs of ids, each once, in to's room: an event's links may name a term twice,
// and its sets hold it once. Short lists, as links are, are compared pairwise; a long one is sorted.
func distinct(ids, to []uint64) []uint64 {
	to = to[:0]
	if len(ids) > 8 {
		to = append(to, ids...)
		slices.Sort(to)
		return slices.Compact(to)
	}
	for i, id := range ids {
		if !slices.Contains(ids[:i], id) {
			to = append(to, id)
		}
	}
	return to
}

// pad appends zeros up to the next offset from start, a file's, that is a multiple of 8.
func pad(buf []byte, start int) []byte {
	for (len(buf)-start)%8 != 0 {
		buf = append(buf, 0)
	}
	return buf
}

// appendArray appends the values of s as they lie in memory, at the next offset from start that is a
// multiple of 8 (pad): after its length, which the caller appends. T holds no pointers.
func appendArray[T any](buf []byte, start int, s []T) []byte {
	return append(pad(buf, start), bytesOf(s)...)
}

// bytesOf is the memory of s, which holds no pointers.
func bytesOf[T any](s []T) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*int(unsafe.Sizeof(*new(T))))
}

// array returns the n values of T that appendArray wrote, where they lie in d: padded to an address
// that is a multiple of 8 (d's bytes start at such an address, decodeProjection), which Go's code
// expects of T.
func array[T any](d *decoder, n int) []T { return view[T](d.aligned(n, int(unsafe.Sizeof(*new(T))))) }

// view is the values of T, which holds no pointers, whose memory b is, at an address that is a
// multiple of 8.
func view[T any](b []byte) []T {
	size := int(unsafe.Sizeof(*new(T)))
	if len(b) < size {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), len(b)/size)
}

// aligned skips the zeros appendArray padded with, and returns the next n values of size bytes.
func (d *decoder) aligned(n, size int) []byte {
	for _, c := range d.take(-int(uintptr(unsafe.Pointer(unsafe.SliceData(d.b)))) & 7) {
		if c != 0 {
			d.fail("padding not zero")
		}
	}
	if n < 0 || n > len(d.b)/size {
		d.fail("truncated")
		return nil
	}
	return d.take(n * size)
}

// decoder reads what encode wrote; its first failure sticks, and every read after it returns zero.
type decoder struct {
	b   []byte
	err error
}

func (d *decoder) fail(why string) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: %s", errProjection, why)
	}
	d.b = nil
}

// uvarint reads an unsigned varint. Most in a file (the distances between the entries of a list of
// keys) take one byte, read without a call.
func (d *decoder) uvarint() uint64 {
	if len(d.b) > 0 && d.b[0] < 0x80 {
		v := uint64(d.b[0])
		d.b = d.b[1:]
		return v
	}
	return readVarint(d, binary.Uvarint)
}

func (d *decoder) varint() int64 { return readVarint(d, binary.Varint) }

// readVarint reads a number with read, binary.Uvarint or binary.Varint.
func readVarint[T uint64 | int64](d *decoder, read func([]byte) (T, int)) T {
	v, n := read(d.b)
	if n <= 0 {
		d.fail("truncated")
		return 0
	}
	d.b = d.b[n:]
	return v
}

// pairHash mixes an event's ID and start into 64 bits (SplitMix64's finalizer, twice), so that sums
// of them over two lists of events differ when the lists do.
func pairHash(id uint64, start int64) uint64 {
	return mix64(id ^ mix64(uint64(start)+0x9e3779b97f4a7c15))
}

// mix64 is SplitMix64's finalizer: every bit of x moves about half of the result's.
func mix64(x uint64) uint64 {
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// take returns the next n bytes.
func (d *decoder) take(n int) []byte {
	if n < 0 || n > len(d.b) {
		d.fail("truncated")
		return nil
	}
	b := d.b[:n]
	d.b = d.b[n:]
	return b
}

func (d *decoder) u64() uint64 {
	if len(d.b) < 8 {
		d.fail("truncated")
		return 0
	}
	v := binary.LittleEndian.Uint64(d.b)
	d.b = d.b[8:]
	return v
}

func (d *decoder) byte() byte {
	if len(d.b) < 1 {
		d.fail("truncated")
		return 0
	}
	v := d.b[0]
	d.b = d.b[1:]
	return v
}

// count reads a number of items that follow; every item takes at least a byte, so a count larger than
// what is left is corrupt, and refusing it keeps a corrupt file from asking for a huge allocation.
func (d *decoder) count() int {
	n := d.uvarint()
	if n > uint64(len(d.b)) {
		d.fail("count past the end")
		return 0
	}
	return int(n)
}

func (d *decoder) string() string {
	n := d.count()
	s := string(d.b[:n])
	d.b = d.b[n:]
	return s
}

// writeFileAtomic replaces path with data: written to a temporary file beside it, synced, renamed
// over it and the rename synced, so path holds the old content or the new, never a part.
func writeFileAtomic(path string, data []byte) error {
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	return storage.SyncDir(filepath.Dir(path))
}
