package index

import (
	"cmp"
	"slices"
)

// Order is the order of an events list (docs/API.md "Ordering"). Every order is total: ties are
// broken by local start, then ID, so that the pages of an unchanged list never share a record.
type Order uint8

const (
	// OrderStart is by local start, then ID: the default. With Include, it is by publication date,
	// then ID, as the reference orders included events.
	OrderStart Order = iota
	// OrderRelevance is by how well the search matches (relevance.rank): only with a search.
	OrderRelevance
	// OrderDistance is by the distance of the venue from the geo filter's point: only with one.
	OrderDistance
	// OrderModified is by when the event was last modified, to the second.
	OrderModified
)

// inOrder reports whether a scan visits the rows of f in its order, so that it can page them as
// they come: rows are kept by local start.
func (f *EventFilter) inOrder() bool {
	return f.Order == OrderStart && !f.Desc && len(f.Include) == 0
}

// byDistance reports whether f is ordered by distance from its geo filter's point, which the keys
// answer position by position (pageNearest).
func (f *EventFilter) byDistance() bool {
	return f.Order == OrderDistance && f.Geo != nil && f.Geo.Point
}

// keyedRow is a matched row with its sort key under a list's order, computed once per row: a
// relevance rank probes a few sets for every word of the search, too many to do in each comparison.
type keyedRow struct {
	key float64
	r   *eventRow
}

// sort puts the first n of the matched rows in the order of c's list, at the front: by key
// (descending when Desc), ties by local start then ID, or for included events by ID. The other rows
// follow in no order. A page needs the rows up to its end only, and when they are few a heap
// picks them in one pass: the first page of 20,000 matches sorts ten rows, not 20,000. With Collapse
// every row is ordered, as the series already listed are told in order (scan.repeats).
func (c *scan) sort(rows []*eventRow, n int) {
	keyed := make([]keyedRow, len(rows))
	for i, r := range rows {
		k := c.key(r)
		if c.Desc {
			k = -k
		}
		keyed[i] = keyedRow{k, r}
	}
	tie := compareRows
	if c.Order == OrderStart && !c.bounded {
		tie = func(a, b *eventRow) int { return cmp.Compare(a.id, b.id) }
	}
	compare := func(a, b keyedRow) int { return cmp.Or(cmp.Compare(a.key, b.key), tie(a.r, b.r)) }
	if c.Collapse {
		n = len(keyed)
	}
	n = max(min(n, len(keyed)), 0)
	if n*selectShare < len(keyed) {
		smallest(keyed, n, compare)
	} else {
		n = len(keyed)
	}
	slices.SortFunc(keyed[:n], compare)
	for i := range keyed {
		rows[i] = keyed[i].r
	}
}

// selectShare sets when sort picks a page's rows with a heap rather than sorting every row: when
// they are fewer than one in selectShare of them.
const selectShare = 8

// smallest moves the n smallest of rows by compare, in no order, to rows' first n places: they are
// kept as a heap whose root is the largest, which each later row must beat to swap places with it.
func smallest[T any](rows []T, n int, compare func(a, b T) int) {
	heap := rows[:n]
	down := func(i int) {
		for {
			largest := i
			for child := 2*i + 1; child <= 2*i+2 && child < n; child++ {
				if compare(heap[child], heap[largest]) > 0 {
					largest = child
				}
			}
			if largest == i {
				return
			}
			heap[i], heap[largest] = heap[largest], heap[i]
			i = largest
		}
	}
	for i := n/2 - 1; i >= 0; i-- {
		down(i)
	}
	for j := n; j < len(rows) && n > 0; j++ {
		if compare(rows[j], heap[0]) < 0 {
			rows[j], heap[0] = heap[0], rows[j]
			down(0)
		}
	}
}

// key is r's sort key under c's order, ascending.
func (c *scan) key(r *eventRow) float64 {
	switch c.Order {
	case OrderRelevance:
		return float64(c.rel.rank(r.id))
	case OrderDistance:
		return Distance(c.Geo.Lat, c.Geo.Lng, r.lat, r.lng)
	case OrderModified:
		ref, _ := c.refs.get(r.id)
		return float64(ref.modified)
	}
	if !c.bounded {
		return float64(r.date)
	}
	return float64(r.startLocal)
}

// distances returns, for a geo filter with a point, how far from it each event of ids has its venue,
// in kilometres; nil otherwise.
func (p *projection) distances(g *Geo, ids []uint64) []float64 {
	if g == nil || !g.Point {
		return nil
	}
	out := make([]float64, len(ids))
	for i, id := range ids {
		if r := p.event(id); r != nil {
			out[i] = Distance(g.Lat, g.Lng, r.lat, r.lng)
		}
	}
	return out
}
