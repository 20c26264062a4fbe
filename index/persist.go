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
	"os"
	"path/filepath"
	"slices"
	"sync"

	"go.uber.org/zap"

	"github.com/calendard/calendard/storage"
)

// projectionFormat versions a saved projection: its layout, and what a row holds as eventRowOf and
// placeRowOf derive it from a record. Bump it on any change to either; a file of another version is
// not read, and the next start scans the store instead. TestProjectionFormatPinned fails when a row's
// fields change and the pinned layout is not updated with it.
const projectionFormat = 6

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
func (ix *Index) loadSaved(ctx context.Context, check *replayCheck) (uint64, bool) {
	type saved struct {
		proj *projection
		at   uint64
		err  error
	}
	got := make(map[storage.Lang]*saved, len(ix.langs))
	for code := range ix.langs {
		got[code] = &saved{}
	}
	// The languages decode side by side: decoding is the whole cost.
	var wg sync.WaitGroup
	for code, s := range got {
		wg.Go(func() {
			s.err = readMapped(projectionPath(ix.dir, code), func(b []byte) (err error) {
				s.proj, s.at, err = decodeProjection(b, code)
				return err
			})
		})
	}
	wg.Wait()
	from, same := check.head, true
	for code, s := range got {
		why := ""
		if s.err == nil {
			why, s.err = check.unreplayable(ctx, s.at)
		}
		switch {
		case errors.Is(s.err, fs.ErrNotExist):
			ix.log.Info("no saved projection: scanning the store", zap.String("lang", string(code)))
			return 0, false
		case s.err != nil:
			ix.log.Warn("saved projection unusable: scanning the store", zap.String("lang", string(code)), zap.Error(s.err))
			return 0, false
		case why != "":
			ix.log.Info("saved projection is "+why+": scanning the store", zap.String("lang", string(code)))
			return 0, false
		}
		from = min(from, s.at, ix.langs[code].checkpoint)
		same = same && s.at == got[storage.Langs[0]].at
	}
	for code, s := range got {
		ix.langs[code].proj = s.proj
	}
	if same {
		ix.saved = Version{Applied: got[storage.Langs[0]].at}
	}
	return from, true
}

// encode appends p, the projection of code as of change-log position at, to buf: a header (magic,
// format, mapping version, language, position), the event rows in their order, their refs and links
// (appendRefs), the lists of keys (appendKeys), the venues and organizers by ID, and a CRC-32C of all
// that. The position is the one the file is replayed from; p may already hold later changes, which
// replaying applies again harmlessly. The rows and refs are fixed-width little-endian numbers, which
// decoding reads in tight loops, where a row of varints took as many calls as fields.
func (p *projection) encode(buf []byte, code storage.Lang, at uint64) []byte {
	buf = append(buf, projectionMagic...)
	buf = binary.AppendUvarint(buf, projectionFormat)
	buf = appendString(buf, mappingVersion)
	buf = appendString(buf, string(code))
	buf = binary.AppendUvarint(buf, at)
	// Room for the rows, refs and links at once: grown by appends, the buffer was copied over and over.
	buf = slices.Grow(buf, len(p.events)*(eventRowSize+refSize)+3*len(p.linkIDs))
	buf = binary.AppendUvarint(buf, uint64(len(p.events)))
	for i := range p.events {
		r := &p.events[i]
		for _, v := range [...]uint64{r.id, r.author, r.venue, uint64(r.date), uint64(r.startUTC), uint64(r.startLocal),
			math.Float64bits(r.lat), math.Float64bits(r.lng)} {
			buf = binary.LittleEndian.AppendUint64(buf, v)
		}
		buf = append(buf, byte(r.status), byte(r.trashed), flagsOf(r))
	}
	buf = p.appendRefs(buf)
	buf = p.appendKeys(buf)
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
	return binary.LittleEndian.AppendUint32(buf, crc32.Checksum(buf, crcTable))
}

// An event row's booleans, in one byte.
const (
	flagHidden = 1 << iota
	flagFeatured
	flagHasGeo
	flagSharesText
	flagsKnown = flagHidden | flagFeatured | flagHasGeo | flagSharesText
)

func flagsOf(r *eventRow) byte {
	var f byte
	if r.hidden {
		f |= flagHidden
	}
	if r.featured {
		f |= flagFeatured
	}
	if r.hasGeo {
		f |= flagHasGeo
	}
	if r.sharesText {
		f |= flagSharesText
	}
	return f
}

func appendString(buf []byte, s string) []byte {
	return append(binary.AppendUvarint(buf, uint64(len(s))), s...)
}

// eventRowSize is the size of a saved event row: eight numbers of 8 bytes, its status, the status it
// was trashed from, and its flags.
const eventRowSize = 8*8 + 3

// refSize is the size of a saved ref: its event's ID and local start, its links' parent and modified
// stamp, and how many organizers and terms they hold.
const refSize = 8 + 8 + 8 + 4 + 4 + 4

// appendRefs appends p's refs, after the table's hash multiplier, in the order of their IDs' hashes,
// which is their order in the table (eventRefs), so that decoding places them in one pass; then
// their links' IDs in the same order, as varints: the IDs of terms and organizers are small numbers.
func (p *projection) appendRefs(buf []byte) []byte {
	buf = binary.AppendUvarint(buf, uint64(p.refs.len()))
	buf = binary.LittleEndian.AppendUint64(buf, p.refs.mult)
	links := 0
	for r := range p.refs.all() {
		buf = binary.LittleEndian.AppendUint64(buf, r.id)
		buf = binary.LittleEndian.AppendUint64(buf, uint64(r.startLocal))
		buf = binary.LittleEndian.AppendUint64(buf, r.parent)
		buf = binary.LittleEndian.AppendUint32(buf, r.modified)
		buf = binary.LittleEndian.AppendUint32(buf, r.orgs)
		buf = binary.LittleEndian.AppendUint32(buf, r.terms)
		links += int(r.orgs + r.terms)
	}
	buf = binary.AppendUvarint(buf, uint64(links))
	for r := range p.refs.all() {
		for _, id := range p.linkIDs[r.off : r.off+r.orgs+r.terms] {
			buf = binary.AppendUvarint(buf, id)
		}
	}
	return buf
}

// decodeProjection reads a projection encode wrote for code, and returns it with the position it is
// to be replayed from. It returns errProjection for a file that is truncated, corrupt (its checksum,
// or rows out of order), of another format or mapping version, or of another language: such a file is
// never trusted, whatever part of it reads well.
func decodeProjection(b []byte, code storage.Lang) (*projection, uint64, error) {
	if len(b) < len(projectionMagic)+4 || string(b[:len(projectionMagic)]) != string(projectionMagic) {
		return nil, 0, fmt.Errorf("%w: not a projection", errProjection)
	}
	body := b[:len(b)-4]
	if crc32.Checksum(body, crcTable) != binary.LittleEndian.Uint32(b[len(body):]) {
		return nil, 0, fmt.Errorf("%w: checksum mismatch", errProjection)
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
	at := d.uvarint()
	p := newProjection()
	rows := p.readRows(&d)
	if d.err == nil {
		p.readRefs(&d, rows)
	}
	if d.err == nil {
		p.readKeys(&d)
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

// appendKeys appends what rebuildKeys derives from the rows and their links: each term's, venue's,
// position's and cell's listed keys, and the sets of linked events. Rebuilding them took 2.9 s of a
// restart's 5 s of CPU at 1M events (many lists grown by append, through as many map lookups per row), where
// reading them back is a sequential pass. A projection whose keys are not built (keysReady) has none
// to save: a byte says whether they follow.
func (p *projection) appendKeys(buf []byte) []byte {
	if !p.keysReady {
		return append(buf, 0)
	}
	buf = append(buf, 1)
	// A listed key is saved as its position in listed, which the rows give again. The positions are
	// found by ID: bisecting listed for each key took 0.3 s for 260k events, under the read lock.
	positions := make(map[uint64]uint64, len(p.listed))
	for i, k := range p.listed {
		positions[k.id] = uint64(i)
	}
	at := func(k rowKey) uint64 { return positions[k.id] }
	buf = appendLists(buf, p.termListed, binary.AppendUvarint, at)
	buf = appendLists(buf, p.venueListed, binary.AppendUvarint, at)
	buf = appendLists(buf, p.placeListed, appendPoint, at)
	cells := make(map[cell][]rowKey, len(p.placeCells))
	for c, in := range p.placeCells {
		cells[c] = in.keys
	}
	buf = appendLists(buf, cells, appendCell, at)
	id := func(id uint64) uint64 { return id }
	for _, sets := range p.linkedSets() {
		buf = appendLists(buf, *sets, binary.AppendUvarint, id)
	}
	return buf
}

// readKeys reads what appendKeys wrote, or builds the keys when none were saved.
func (p *projection) readKeys(d *decoder) {
	if d.byte() == 0 {
		p.rebuildKeys()
		return
	}
	p.listRows()
	listed := func(i uint64) (rowKey, bool) {
		if i >= uint64(len(p.listed)) {
			return rowKey{}, false
		}
		return p.listed[i], true
	}
	p.termListed = readLists[uint64, []rowKey](d, (*decoder).uvarint, listed)
	p.venueListed = readLists[uint64, []rowKey](d, (*decoder).uvarint, listed)
	p.placeListed = readLists[point, []rowKey](d, (*decoder).point, listed)
	cells := readLists[cell, []rowKey](d, (*decoder).cell, listed)
	id := func(id uint64) (uint64, bool) { return id, true }
	for _, sets := range p.linkedSets() {
		*sets = readLists[uint64, eventIDs](d, (*decoder).uvarint, id)
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

// appendLists appends the ordered lists of m: how many lists and entries in all, then each list's
// key, length, and entries as numbers that number gives them (a position, an ID), ascending: the
// first as it is, each next as its distance from the one past the one before. The lists come in the
// map's order: a file's bytes may differ from one save to the next, and read back the same.
func appendLists[K comparable, S ~[]E, E any](buf []byte, m map[K]S, appendKey func([]byte, K) []byte, number func(E) uint64) []byte {
	total := 0
	for _, s := range m {
		total += len(s)
	}
	buf = binary.AppendUvarint(buf, uint64(len(m)))
	buf = binary.AppendUvarint(buf, uint64(total))
	for key, s := range m {
		buf = appendKey(buf, key)
		buf = binary.AppendUvarint(buf, uint64(len(s)))
		var from uint64
		for _, e := range s {
			n := number(e)
			buf = binary.AppendUvarint(buf, n-from)
			from = n + 1
		}
	}
	return buf
}

// readLists reads lists appendLists wrote, each key once, none empty; entry gives the entry of a
// number, or false for one that names none. The lists are cut from one array, each capped at its
// length, so that a later insert into one copies it rather than overwrite the next.
func readLists[K comparable, S ~[]E, E any](d *decoder, readKey func(*decoder) K, entry func(uint64) (E, bool)) map[K]S {
	n, total := d.count(), d.count()
	m := make(map[K]S, n)
	all := prefault(make(S, total))
	for range n {
		key := readKey(d)
		size := d.count()
		if _, twice := m[key]; twice || size == 0 || size > len(all) {
			d.fail("lists of keys malformed")
			return nil
		}
		list := all[:size:size]
		all = all[size:]
		var from uint64
		for i := range list {
			number := from + d.uvarint()
			var ok bool
			if list[i], ok = entry(number); !ok || number < from {
				d.fail("list of keys past the rows")
				return nil
			}
			from = number + 1
		}
		m[key] = list
	}
	if len(all) > 0 {
		d.fail("lists of keys shorter than said")
		return nil
	}
	return m
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

// readRows reads the event rows encode wrote, and fails d for rows out of order, of an unknown
// status or flag, or at a position that is not a number (venues refuse one). It returns the sum of their pairs' hashes (pairHash).
func (p *projection) readRows(d *decoder) (sum uint64) {
	b := d.take(d.count() * eventRowSize)
	p.events = prefault(make([]eventRow, len(b)/eventRowSize))
	for i := range p.events {
		e := b[i*eventRowSize : (i+1)*eventRowSize]
		r := &p.events[i]
		r.id, r.author, r.venue = binary.LittleEndian.Uint64(e), binary.LittleEndian.Uint64(e[8:]), binary.LittleEndian.Uint64(e[16:])
		r.date, r.startUTC = int64(binary.LittleEndian.Uint64(e[24:])), int64(binary.LittleEndian.Uint64(e[32:]))
		r.startLocal = int64(binary.LittleEndian.Uint64(e[40:]))
		r.lat, r.lng = math.Float64frombits(binary.LittleEndian.Uint64(e[48:])), math.Float64frombits(binary.LittleEndian.Uint64(e[56:]))
		r.status, r.trashed = state(e[64]), state(e[65])
		flags := e[66]
		r.hidden, r.featured, r.hasGeo = flags&flagHidden != 0, flags&flagFeatured != 0, flags&flagHasGeo != 0
		r.sharesText = flags&flagSharesText != 0
		switch {
		case int(r.status) >= len(statuses) || int(r.trashed) >= len(statuses):
			d.fail("unknown status")
			return
		case flags&^flagsKnown != 0:
			d.fail("unknown flags")
			return
		case math.IsNaN(r.lat) || math.IsNaN(r.lng):
			d.fail("position not a number")
			return
		case i > 0 && compareRows(&p.events[i-1], r) >= 0:
			d.fail("event rows out of order")
			return
		}
		sum += pairHash(r.id, r.startLocal)
	}
	return sum
}

// readRefs reads what appendRefs wrote, and fails d unless the refs are in order (so no ID comes
// twice), their links lie within the IDs that follow, and they name the rows' events at the rows'
// starts: the sum of their pairs' hashes is rows, the rows' (readRows). A ref holds its event's ID and
// start rather than its row's position, whose row would be read at random, as slowly as a map
// insertion. The sums of two lists that differ are equal by a chance of 2^-64, where a file changed
// on the disk passes its checksum by one of 2^-32.
func (p *projection) readRefs(d *decoder, rows uint64) {
	n := len(p.events)
	if d.count() != n {
		d.fail("refs do not match the rows")
		return
	}
	mult := d.u64()
	if mult%2 == 0 {
		d.fail("refs hashed by an even multiplier")
		return
	}
	b := d.take(n * refSize)
	p.refs = refsHashed(n, mult)
	var last, links, sum uint64
	for i := 0; i < len(b); i += refSize {
		e := b[i : i+refSize]
		r := eventRef{id: binary.LittleEndian.Uint64(e), startLocal: int64(binary.LittleEndian.Uint64(e[8:])),
			linkSpan: linkSpan{parent: binary.LittleEndian.Uint64(e[16:]), off: uint32(links), modified: binary.LittleEndian.Uint32(e[24:]),
				orgs: binary.LittleEndian.Uint32(e[28:]), terms: binary.LittleEndian.Uint32(e[32:])}}
		h := p.refs.hash(r.id)
		if i > 0 && h <= last {
			d.fail("refs out of order, or an event listed twice")
			return
		}
		last = h
		if links += uint64(r.orgs) + uint64(r.terms); links > math.MaxUint32 {
			d.fail("links past the end")
			return
		}
		sum += pairHash(r.id, r.startLocal)
		p.refs.place(r)
	}
	if sum != rows {
		d.fail("refs do not match the rows")
		return
	}
	if uint64(d.count()) != links {
		d.fail("links past the end")
		return
	}
	p.linkIDs = prefault(make([]uint64, links))
	for i := range p.linkIDs {
		p.linkIDs[i] = d.uvarint()
	}
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
	mix := func(x uint64) uint64 {
		x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
		x = (x ^ x>>27) * 0x94d049bb133111eb
		return x ^ x>>31
	}
	return mix(id ^ mix(uint64(start)+0x9e3779b97f4a7c15))
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
