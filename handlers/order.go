package handlers

import (
	"bytes"
	"math"
	"strings"

	"github.com/calendard/calendard/index"
)

// The order of the events list (docs/API.md "Ordering"): orderby names it, order reverses it where
// that makes sense, and with a geo point every event tells its distance (distance_km).

// eventOrders are the values of orderby, each with its order in the index and whether it lists
// descending when order is not sent: the newest modification first, the best match first.
var eventOrders = []struct {
	name  string
	order index.Order
	desc  bool
}{
	{"start_date", index.OrderStart, false},
	{"relevance", index.OrderRelevance, true},
	{"distance", index.OrderDistance, false},
	{"modified", index.OrderModified, true},
}

// orderNames are the values of orderby, for its row's Enum.
func orderNames() []string {
	var out []string
	for _, o := range eventOrders {
		out = append(out, o.name)
	}
	return out
}

// orderParams are the events list's rows of its order, after its filters.
var orderParams = []Param{
	{Name: "orderby", Type: tString, Default: "start_date", Enum: orderNames(),
		Desc: "Order of the events.",
		set:  into(func(q *eventQuery, s string) { q.orderby = s })},
	{Name: "order", Type: tString, Enum: []string{"asc", "desc"}, parse: parseLowerEnum("asc", "desc"),
		Desc: "Sort direction.",
		set:  into(func(q *eventQuery, s string) { desc := strings.EqualFold(s, "desc"); q.desc = &desc })},
}

// setOrder completes f with the order of q (by start, ascending, when orderby is not sent), and
// returns the problems of an order that q's filters do not allow: relevance without a search or
// ascending, distance without a geo centre.
func (q *eventQuery) setOrder(f *index.EventFilter) []problem {
	var problems []problem
	for _, o := range eventOrders {
		if o.name == q.orderby {
			f.Order, f.Desc = o.order, o.desc
		}
	}
	if q.desc != nil {
		f.Desc = *q.desc
	}
	switch {
	case f.Order == index.OrderRelevance && f.Search == "":
		problems = append(problems, problem{name: "orderby", code: "rest_invalid_param", message: "relevance needs search"})
	case f.Order == index.OrderRelevance && !f.Desc:
		problems = append(problems, problem{name: "order", code: "rest_invalid_param", message: "relevance lists the best match first: only desc"})
	case f.Order == index.OrderDistance && (!q.geoloc || q.lat == nil && q.lng == nil):
		// A centre missing one coordinate is geoloc's problem (eventFilter), not the order's.
		problems = append(problems, problem{name: "orderby", code: "rest_invalid_param", message: "distance needs geoloc with geoloc_lat and geoloc_lng"})
	}
	return problems
}

// distanceKm is how a distance is told: in kilometres, to a tenth.
func distanceKm(km float64) float64 { return math.Round(km*10) / 10 }

// distancesOf adds to each item of a page its distance_km (renderItemsWith), when the page has
// distances (a geo point); nil otherwise, which adds nothing.
func distancesOf(res index.Page) func(id uint64, item any) any {
	if res.Distances == nil {
		return nil
	}
	km := make(map[uint64]float64, len(res.IDs))
	for i, id := range res.IDs {
		km[id] = res.Distances[i]
	}
	return func(id uint64, item any) any { return withDistance(item, km[id]) }
}

// withDistance returns a list's item with its distance_km member appended (withMembers).
func withDistance(item any, km float64) any {
	return withMembers{item, obj{{"distance_km", distanceKm(km)}}}
}

// withMembers is an encoded JSON object written with more members at its end: a list item taken
// from the item cache, which holds what every list shows, with what only this list adds.
type withMembers struct {
	item  any
	extra obj
}

func (w withMembers) encode(buf *bytes.Buffer) error {
	if err := encodeValue(buf, w.item); err != nil {
		return err
	}
	b := buf.Bytes()
	if len(b) < 2 || b[len(b)-1] != '}' {
		return nil // not an object: nothing to add to
	}
	buf.Truncate(len(b) - 1)
	empty := b[len(b)-2] == '{'
	for _, m := range w.extra {
		if !empty {
			buf.WriteByte(',')
		}
		empty = false
		writeString(buf, m.key)
		buf.WriteByte(':')
		if err := encodeValue(buf, m.val); err != nil {
			return err
		}
	}
	buf.WriteByte('}')
	return nil
}
