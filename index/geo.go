package index

import "math"

// earthRadiusKm is the mean Earth radius of docs/API.md "Events list parameters".
const earthRadiusKm = 6371.0088

// Distance is the great-circle (haversine) distance in kilometres between two points in degrees.
func Distance(lat1, lng1, lat2, lng2 float64) float64 {
	rad := math.Pi / 180
	dLat, dLng := (lat2-lat1)*rad, (lng2-lng1)*rad
	a := math.Sin(dLat/2)*math.Sin(dLat/2) + math.Cos(lat1*rad)*math.Cos(lat2*rad)*math.Sin(dLng/2)*math.Sin(dLng/2)
	return 2 * earthRadiusKm * math.Asin(math.Min(1, math.Sqrt(a)))
}

// box is a latitude/longitude rectangle holding every point within a radius of its centre, with the
// positions already measured inside it when it has a table for them (seen): a scan's box does, the
// keys' geo filter (placeFilter), which measures each position once, does without its 24 KB (5 % of
// the bytes the 1M mix allocated).
type box struct {
	lat, lng, radiusKm float64
	dLat, dLng         float64
	anyLng             bool
	// cosLat and reach are surelyIn's: the cosine of the centre's latitude, and the radius in degrees
	// of a great circle less a margin far above any rounding of the haversine.
	cosLat, reach float64
	seen          *[1 << seenBits]seenPoint
}

func boxAround(lat, lng, radiusKm float64) *box {
	deg := 180 / math.Pi
	b := &box{lat: lat, lng: lng, radiusKm: radiusKm, dLat: radiusKm/earthRadiusKm*deg + 1e-9,
		cosLat: math.Cos(lat / deg), reach: radiusKm / earthRadiusKm * deg * (1 - 1e-9)}
	if far := math.Abs(lat) + b.dLat; far >= 89 {
		b.anyLng = true // near a pole every longitude may be close
	} else {
		b.dLng = b.dLat/math.Cos(far/deg) + 1e-9
	}
	return b
}

func (b *box) contains(lat, lng float64) bool {
	if math.Abs(lat-b.lat) > b.dLat {
		return false
	}
	if b.anyLng {
		return true
	}
	d := math.Abs(lng - b.lng)
	if d > 180 {
		d = 360 - d
	}
	return d <= b.dLng
}

// surelyIn reports, without trigonometry, whether a point is certainly within the radius: the way from
// it along its meridian to the centre's latitude, then along that parallel to the centre, is at least
// as long as the great circle between them, so a point whose way is shorter than the radius is within
// it. Most points of a circle are (a diamond's share, 2/π), and the rest are measured (near).
func (b *box) surelyIn(lat, lng float64) bool {
	d := math.Abs(lng - b.lng)
	if d > 180 {
		d = 360 - d
	}
	return math.Abs(lat-b.lat)+b.cosLat*d <= b.reach
}

// near reports whether a position is within the radius of b's centre. The bounding box rules out
// most positions before any trigonometry, and the many events of one venue share their venue's
// position, so a scan's box remembers each distance by position (seen).
func (b *box) near(lat, lng float64) bool {
	if !b.contains(lat, lng) {
		return false
	}
	if b.surelyIn(lat, lng) {
		return true
	}
	if b.seen == nil {
		return Distance(b.lat, b.lng, lat, lng) <= b.radiusKm
	}
	h := (math.Float64bits(lat)*0x9E3779B97F4A7C15 + math.Float64bits(lng)) * 0xBF58476D1CE4E5B9
	e := &b.seen[h>>(64-seenBits)]
	if !e.set || e.lat != lat || e.lng != lng {
		*e = seenPoint{lat: lat, lng: lng, set: true, in: Distance(b.lat, b.lng, lat, lng) <= b.radiusKm}
	}
	return e.in
}

// seenBits sizes the table of positions a scan remembers: more than the venues of a city.
const seenBits = 10

type seenPoint struct {
	lat, lng float64
	set, in  bool
}

// reaches reports whether a position in cell c may be in the box: the cell's rectangle, widened by a
// cell's side against rounding, meets it.
func (b *box) reaches(c cell) bool {
	if lat := (float64(c.lat) + 0.5) * cellDegrees; math.Abs(lat-b.lat) > b.dLat+cellDegrees {
		return false
	}
	if b.anyLng {
		return true
	}
	d := math.Abs((float64(c.lng)+0.5)*cellDegrees - b.lng)
	if d > 180 {
		d = 360 - d
	}
	return d <= b.dLng+cellDegrees
}

// holds reports whether every position in cell c is within the radius (so near): then each corner
// of the cell's rectangle, widened by cellSlack beyond any rounding of cellOf, is, with a margin
// above the haversine's rounding. Along a parallel the distance from the centre grows with the
// difference in longitude, and along a meridian it falls to one least latitude and grows away from
// it, so over a rectangle it is largest at a corner. That holds while the rectangle does not reach
// the centre's antimeridian, which no rectangle within the radius of a box not anyLng does.
func (b *box) holds(c cell) bool {
	if b.anyLng {
		return false
	}
	lat0, lat1 := float64(c.lat)*cellDegrees-cellSlack, float64(c.lat+1)*cellDegrees+cellSlack
	lng0, lng1 := float64(c.lng)*cellDegrees-cellSlack, float64(c.lng+1)*cellDegrees+cellSlack
	within := func(lat, lng float64) bool { return Distance(b.lat, b.lng, lat, lng) <= b.radiusKm*(1-1e-9) }
	return within(lat0, lng0) && within(lat0, lng1) && within(lat1, lng0) && within(lat1, lng1)
}

// cellSlack widens a cell's rectangle, in degrees: far more than cellOf's rounding (~1e-14), and
// nothing beside a cell.
const cellSlack = 1e-9

// cellDegrees is the side of a cell of placeCells, in degrees of latitude and longitude: 2.2 km
// north to south. A geo filter takes one list for each cell wholly within its circle, and tests
// the positions of the cells its edge crosses one by one (box.holds). At 1M events, around London
// (13,000 positions in 264 cells), 0.01 took more lists for large circles, and 0.04 tested more
// positions for a 5 km one.
const cellDegrees = 0.02

// cell is a cell of the map: the positions whose latitude and longitude, divided by cellDegrees,
// round down to lat and lng.
type cell struct{ lat, lng int32 }

func cellOf(at point) cell {
	return cell{int32(math.Floor(at.lat / cellDegrees)), int32(math.Floor(at.lng / cellDegrees))}
}

// placeCell is the positions in one cell that have listed rows, and the keys of all their rows.
type placeCell struct {
	points []point
	keys   []rowKey // ordered
}

// cellAt returns the cell of at, made with room for size keys if there was none.
func (p *projection) cellAt(at point, size int) *placeCell {
	c := p.placeCells[cellOf(at)]
	if c == nil {
		c = &placeCell{keys: make([]rowKey, 0, size)}
		p.placeCells[cellOf(at)] = c
	}
	return c
}

// buildCells groups the positions of placeListed into placeCells, and their keys from the rows, in
// order, in one pass.
func (p *projection) buildCells() {
	p.placeCells = map[cell]*placeCell{}
	size := map[cell]int{}
	for at, keys := range p.placeListed {
		size[cellOf(at)] += len(keys)
	}
	for at := range p.placeListed {
		c := p.cellAt(at, size[cellOf(at)])
		c.points = append(c.points, at)
	}
	for i := range p.events {
		if r := &p.events[i]; r.hasGeo && rowListed(r) {
			c := p.cellAt(point{r.lat, r.lng}, 0)
			c.keys = append(c.keys, keyOf(r))
		}
	}
}
