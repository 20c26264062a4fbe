package input

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
)

func TestMerge(t *testing.T) {
	tests := []struct {
		name    string
		sources []map[string]any
		want    map[string]any
	}{
		{name: "no sources", want: map[string]any{}},
		{name: "nil sources", sources: []map[string]any{nil, nil}, want: map[string]any{}},
		{
			// docs/API.md "Parameters and bodies": path > JSON body > form body > query string.
			name: "earlier sources win",
			sources: []map[string]any{
				{"id": "7"},
				{"id": json.Number("8"), "title": "json"},
				{"id": "9", "title": "form", "status": "draft"},
				{"id": "10", "title": "query", "status": "publish", "page": "2"},
			},
			want: map[string]any{"id": "7", "title": "json", "status": "draft", "page": "2"},
		},
		{
			// docs/API.md "Parameters and bodies": null is absent, so it neither sets a
			// parameter nor hides a later source's value.
			name: "null is absent",
			sources: []map[string]any{
				{"venue": nil, "organizer": nil},
				{"venue": "12"},
			},
			want: map[string]any{"venue": "12"},
		},
		{
			name: "shallow: objects are not combined",
			sources: []map[string]any{
				{"venue": map[string]any{"city": "Amsterdam"}},
				{"venue": map[string]any{"zip": "1071"}},
			},
			want: map[string]any{"venue": map[string]any{"city": "Amsterdam"}},
		},
		{
			name: "nested nulls are kept",
			sources: []map[string]any{
				{"cost": []any{nil, "5"}},
			},
			want: map[string]any{"cost": []any{nil, "5"}},
		},
		{
			name:    "empty values are values",
			sources: []map[string]any{{"title": "", "tags": []any{}}, {"title": "x", "tags": "a"}},
			want:    map[string]any{"title": "", "tags": []any{}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Merge(tc.sources...)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Merge()\n got %#v\nwant %#v", got, tc.want)
			}
		})
	}
}

// ExampleMerge shows the parameter pipeline of a handler.
func ExampleMerge() {
	path := map[string]any{"id": "7"}
	body, _ := JSON([]byte(`{"title":"Concert","featured":"yes","venue":null}`))
	query := Form("featured=0&venue=12&categories=3,4")
	params := Merge(path, body, nil, query)

	id, _ := Int(params["id"])
	featured, _ := Bool(params["featured"])
	venue, _ := Int(params["venue"])
	categories, _ := List(params["categories"])
	fmt.Println(id, featured, venue, categories)
	// Output: 7 true 12 [3 4]
}
