package handlers

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/calendard/calendard/handlers/input"
	"github.com/calendard/calendard/storage"
	"github.com/calendard/calendard/storage/datetime"
)

// ptype is a parameter's declared type (docs/API.md "Parameters and bodies").
type ptype int

const (
	tString ptype = iota + 1
	tInt
	tNumber
	tBool
	tTruthy
	tUntyped
	tList
	tDateTime
)

// null is the JSON null default some seed parameters document.
type null struct{}

// Param declares one route parameter. Validation, the namespace index and /doc are all derived from
// these declarations, so they cannot drift apart.
type Param struct {
	Name     string
	Type     ptype
	Items    ptype // element type of a tList
	Required bool
	// NonEmpty rejects "" (after trimming) with rest_invalid_param rather than treating it as a value.
	NonEmpty bool
	Default  any // documentation only; null{} documents JSON null
	Enum     []string
	// MaxLen bounds strings (characters) and lists (items).
	MaxLen int
	Desc   string
	// In is "path" for path parameters (matched by the router, not validated here), else "".
	In string
	// parse replaces the type's coercion for parameters whose rules go beyond their type; it gets the
	// raw value and returns the coerced one or a problem.
	parse func(rq *request, v any) (any, *problem)
	// set, on a row of a list table, stores the coerced value in the list's query (endpoint.query),
	// where the list reads it as a field of its own type; into makes it.
	set func(q, v any)
}

// into makes a list row's set from a typed one: Q is the query of the row's table (or an interface
// the queries of several tables share), T the type the row's coercion yields. The conversions cannot
// fail while the row's type and parser yield a T and its table is served with a Q, which
// TestListRowsWriteTheirQuery checks for every row of every list table.
func into[Q, T any](set func(Q, T)) func(q, v any) {
	return func(q, v any) { set(q.(Q), v.(T)) }
}

// values are the coerced parameters of one request: absent parameters have no key.
type values map[string]any

func (v values) str(name string) *string {
	if s, ok := v[name].(string); ok {
		return &s
	}
	return nil
}

func (v values) boolean(name string) *bool {
	if b, ok := v[name].(bool); ok {
		return &b
	}
	return nil
}

func (v values) id(name string) *uint64 {
	if n, ok := v[name].(int64); ok {
		u := uint64(max(n, 0))
		return &u
	}
	return nil
}

func (v values) expr(name string) *datetime.Expr {
	if e, ok := v[name].(datetime.Expr); ok {
		return &e
	}
	return nil
}

// validate runs steps 6 and 7 of docs/API.md "Responses" over a route's table: missing required parameters first
// (and instead of anything else), then every invalid parameter at once. The rows of a list table also
// write their values into q, the list's query; q is nil for the other tables.
func validate(rq *request, params []Param, src map[string]any, q any) (values, error) {
	var missing []string
	for _, p := range params {
		if p.Required && p.In == "" && src[p.Name] == nil {
			missing = append(missing, p.Name)
		}
	}
	if len(missing) > 0 {
		return nil, missingParams(missing)
	}
	vals := values{}
	var problems []problem
	for _, p := range params {
		raw, ok := src[p.Name]
		if !ok || raw == nil || p.In == "path" {
			continue
		}
		v, prob := p.coerce(rq, raw)
		if prob != nil && prob.err != nil {
			return nil, prob.err
		}
		if prob != nil {
			prob.name = p.Name
			problems = append(problems, *prob)
			continue
		}
		vals[p.Name] = v
		if p.set != nil {
			p.set(q, v)
		}
	}
	if len(problems) > 0 {
		return nil, invalidParams(problems)
	}
	return vals, nil
}

func (p *Param) coerce(rq *request, raw any) (any, *problem) {
	if p.parse != nil {
		return p.parse(rq, raw)
	}
	v, err := coerceType(p.Type, raw)
	if err != nil {
		return nil, typeProblem(err)
	}
	switch v := v.(type) {
	case string:
		if p.NonEmpty && strings.TrimSpace(storage.SingleLine(v)) == "" { // a value of control characters is blank too
			return nil, &problem{code: "rest_invalid_param", message: "must not be empty"}
		}
		if len(p.Enum) > 0 && !slices.Contains(p.Enum, v) {
			return nil, &problem{code: "rest_not_in_enum", message: "must be one of " + strings.Join(p.Enum, ", ")}
		}
		if p.MaxLen > 0 && utf8.RuneCountInString(v) > p.MaxLen {
			return nil, tooLong(p.MaxLen, "characters")
		}
	case []any:
		if p.MaxLen > 0 && len(v) > p.MaxLen {
			return nil, tooLong(p.MaxLen, "items")
		}
		for i, item := range v {
			c, err := coerceType(p.Items, item)
			if err != nil {
				return nil, typeProblem(err)
			}
			v[i] = c
		}
	}
	return v, nil
}

func coerceType(t ptype, raw any) (any, error) {
	switch t {
	case tString:
		return input.String(raw)
	case tInt:
		return input.Int(raw)
	case tNumber:
		return input.Number(raw)
	case tBool:
		return input.Bool(raw)
	case tTruthy:
		return input.Truthy(raw)
	case tList:
		return input.List(raw)
	case tDateTime:
		return parseDateTime(raw)
	}
	return raw, nil
}

var errDateTime = errors.New("must be a date and time (YYYY-MM-DD HH:MM:SS, a timestamp or a relative expression)")

func parseDateTime(raw any) (datetime.Expr, error) {
	var s string
	switch v := raw.(type) {
	case string:
		s = v
	case json.Number:
		s = v.String()
	default:
		return datetime.Expr{}, errDateTime
	}
	e, err := datetime.Parse(s)
	if err != nil {
		return datetime.Expr{}, errDateTime
	}
	return e, nil
}

func typeProblem(err error) *problem {
	var te *input.TypeError
	if errors.As(err, &te) {
		return &problem{code: "rest_invalid_type", message: err.Error()}
	}
	return &problem{code: "rest_invalid_param", message: err.Error()}
}

func tooLong(n int, unit string) *problem {
	return &problem{code: "rest_too_long", message: "must be at most " + itoa(int64(n)) + " " + unit}
}

// langParam is defined on every route (docs/API.md "Common parameters").
var langParam = Param{Name: "translation_language", Type: tString, Enum: langCodes(),
	Desc: "Language of the content addressed."}

func langCodes() []string {
	var out []string
	for _, l := range storage.Langs {
		out = append(out, string(l))
	}
	return out
}

// creating returns a copy of params for a create endpoint: `trash` is not a status a record can be
// created in (docs/API.md "Statuses"), and rejecting it here answers 400 before the permission check (1.6).
func creating(params []Param) []Param {
	out := slices.Clone(params)
	for i := range out {
		if out[i].Name == "status" {
			out[i].Enum = slices.DeleteFunc(slices.Clone(out[i].Enum), func(s string) bool { return s == string(storage.StatusTrash) })
		}
	}
	return out
}

// optional returns a copy of params with nothing required: update endpoints take every body field as
// optional (docs/API.md "Updates").
func optional(params []Param) []Param {
	out := slices.Clone(params)
	for i := range out {
		if out[i].In == "" {
			out[i].Required = false
		}
	}
	return out
}
