package index

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestBoxHoldsTheCircle checks the geo prefilter never rules out a point within the radius: anywhere
// on the globe, across the date line and near the poles.
func TestBoxHoldsTheCircle(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	for range 200000 {
		lat, lng := rng.Float64()*180-90, rng.Float64()*360-180
		radius := []float64{1, 25, 300, 5000, 20000}[rng.IntN(5)]
		b := boxAround(lat, lng, radius)
		plat, plng := lat+(rng.Float64()*2-1)*rng.Float64()*90, lng+(rng.Float64()*2-1)*rng.Float64()*180
		plat = max(-90, min(90, plat))
		if plng > 180 {
			plng -= 360
		} else if plng < -180 {
			plng += 360
		}
		if Distance(lat, lng, plat, plng) <= radius && !b.contains(plat, plng) {
			t.Fatalf("box around (%v, %v) r=%v excludes (%v, %v) at %v km", lat, lng, radius, plat, plng, Distance(lat, lng, plat, plng))
		}
	}
}

// TestScansShareNoPosition: a scan's table of positions (box.seen) is cleared before another scan
// borrows it, so a position measured around one centre is measured again around the next. P lies
// within the radius of the first centre and beyond that of the second, in both boxes, where neither
// takes it in without the haversine.
func TestScansShareNoPosition(t *testing.T) {
	const radius = 100.0
	deg := radius / earthRadiusKm * 180 / math.Pi
	plat, plng := 0.9*deg/math.Sqrt2, 0.9*deg/math.Sqrt2
	for i, centre := range []struct {
		lat, lng float64
		near     bool
	}{{0, 0, true}, {plat - 0.95*deg, plng - 0.95*deg, false}, {0, 0, true}} {
		c := compile(&EventFilter{Geo: &Geo{Point: true, Lat: centre.lat, Lng: centre.lng, RadiusKm: radius}}, nil, &projection{}, false)
		if c.box.surelyIn(plat, plng) || !c.box.contains(plat, plng) {
			t.Fatalf("scan %d: the position is not one the table remembers", i)
		}
		if got := c.box.near(plat, plng); got != centre.near {
			t.Errorf("scan %d around (%v, %v): near = %v, want %v", i, centre.lat, centre.lng, got, centre.near)
		}
		c.done()
	}
}

// aroundACentre picks a centre anywhere on the globe (one in ten at a pole, the equator or the date
// line), one of radii, and a point within twice that radius of it, in latitude and in longitude.
func aroundACentre(rng *rand.Rand, radii []float64) (lat, lng, radius, plat, plng float64) {
	lat, lng = rng.Float64()*180-90, rng.Float64()*360-180
	if rng.IntN(10) == 0 {
		lat = []float64{-90, 90, 89.999, -89.999, 0}[rng.IntN(5)]
		lng = []float64{-180, 180, 179.999, 0}[rng.IntN(4)]
	}
	radius = radii[rng.IntN(len(radii))]
	spread := 2 * radius / earthRadiusKm * 180 / math.Pi
	plat = max(-90, min(90, lat+(rng.Float64()*2-1)*spread))
	plng = math.Remainder(lng+(rng.Float64()*2-1)*spread/max(0.05, math.Cos(lat*math.Pi/180)), 360)
	return lat, lng, radius, plat, plng
}

// surelyIn must never take in a point the haversine puts beyond the radius, anywhere on the globe, and
// must spare the haversine most of the points within it (its diamond holds 2/π of a small circle).
func TestSurelyInIsWithinTheRadius(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	within, sure := 0, 0
	for range 200000 {
		lat, lng, radius, plat, plng := aroundACentre(rng, []float64{0, 0.01, 1, 25, 300, 5000})
		b := boxAround(lat, lng, radius)
		d := Distance(lat, lng, plat, plng)
		if b.surelyIn(plat, plng) {
			sure++
			if d > radius {
				t.Fatalf("(%v, %v) is taken within %v km of (%v, %v), but lies %v km away", plat, plng, radius, lat, lng, d)
			}
		}
		if d <= radius {
			within++
		}
	}
	if sure < within/3 {
		t.Errorf("only %d of the %d points within their radius were known without the haversine", sure, within)
	}
}

// TestCellsOfTheCircle: a cell the geo filter takes whole (holds) has no position beyond the radius,
// and one it passes by (not reaches) none within the box, anywhere on the globe, for positions on
// the cells' edges too. Cells of each kind must occur, or the test proves nothing.
func TestCellsOfTheCircle(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	held, passed := 0, 0
	for range 60000 {
		lat, lng, radius, plat, plng := aroundACentre(rng, []float64{0.5, 5, 25, 300, 5000})
		b := boxAround(lat, lng, radius)
		if rng.IntN(4) == 0 {
			// On a cell's edge, or a rounding away from it.
			edge := math.Round(plat/cellDegrees) * cellDegrees
			plat = max(-90, min(90, []float64{edge, math.Nextafter(edge, -90), math.Nextafter(edge, 90)}[rng.IntN(3)]))
		}
		c := cellOf(point{plat, plng})
		if b.holds(c) {
			held++
			if !b.near(plat, plng) {
				t.Fatalf("cell %v is held within %v km of (%v, %v), but (%v, %v) in it lies %v km away",
					c, radius, lat, lng, plat, plng, Distance(lat, lng, plat, plng))
			}
		}
		if !b.reaches(c) {
			passed++
			if b.contains(plat, plng) {
				t.Fatalf("cell %v is passed by around (%v, %v) r=%v, but (%v, %v) in it is in the box", c, lat, lng, radius, plat, plng)
			}
		}
	}
	if held < 1000 || passed < 1000 {
		t.Errorf("%d cells held and %d passed by: too few to tell", held, passed)
	}
}
