package storage

import "testing"

// TestNamingTermsNeedsTheirRight: an event naming a term that does not exist creates it only for an
// actor who may create such terms on their own routes (docs/API.md "Authentication and permissions"); anyone may name one that exists.
func TestNamingTermsNeedsTheirRight(t *testing.T) {
	db := mustOpenDB(t)
	mustCreateEvent(t, db, admin, &EventInput{PostInput: PostInput{Title: ptr("Seed")}, Start: expr(t, "2026-12-01 20:00:00"),
		End: expr(t, "2026-12-01 22:00:00"), Categories: &[]string{"Music"}, Tags: &[]string{"jazz"}})
	for _, tc := range []struct {
		role           Role
		newCat, newTag bool // may create one by naming it
	}{
		{RoleAdministrator, true, true},
		{RoleEditor, true, true},
		{RoleAuthor, true, false},
		{RoleContributor, false, false},
	} {
		a := Actor{UserID: 1, Role: tc.role}
		for _, c := range []struct {
			field      string
			in         *EventInput
			may, fresh bool
		}{
			{"categories", &EventInput{Categories: &[]string{"Music", "Theatre " + string(tc.role)}}, tc.newCat, true},
			{"tags", &EventInput{Tags: &[]string{"jazz", "live " + string(tc.role)}}, tc.newTag, true},
			{"categories", &EventInput{Categories: &[]string{"music"}, Tags: &[]string{"Jazz"}}, true, false},
		} {
			in := c.in
			in.PostInput, in.Start, in.End = PostInput{Title: ptr("Show")}, expr(t, "2026-12-02 20:00:00"), expr(t, "2026-12-02 22:00:00")
			_, err := db.CreateEvent(ctx, a, "en", in)
			switch {
			case c.may && err != nil:
				t.Errorf("%s naming %s (new %v): %v", tc.role, c.field, c.fresh, err)
			case !c.may && !isField(err, c.field):
				t.Errorf("%s naming a new term in %s: %v, want a FieldError of %s", tc.role, c.field, err, c.field)
			}
		}
	}
	cats, _, err := db.ResolveTerms(ctx, TaxCategory, []string{"theatre-contributor"})
	if err != nil || len(cats) != 0 {
		t.Errorf("the contributor's category exists: %v %v", cats, err)
	}
}
