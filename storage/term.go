package storage

import (
	"context"
	"slices"
	"strconv"
	"strings"

	"github.com/calendard/calendard/storage/kv"
	"github.com/calendard/calendard/storage/slug"
)

func (t Taxonomy) String() string {
	if t == TaxCategory {
		return "category"
	}
	return "tag"
}

// TermInput is a validated term create or update request; nil means "not sent".
type TermInput struct {
	Name, Description, Slug *string
	// Parent is for categories only; 0 is the top level.
	Parent *uint64
}

// CreateTerm creates a category or tag on behalf of a, whose right to post unfiltered HTML decides how
// the name and description are cleaned. Returns *TermExistsError when the name is taken (docs/API.md
// "Categories and tags"), a *FieldError for an unknown parent or a value breaking an input rule.
func (db *DB) CreateTerm(ctx context.Context, a Actor, tax Taxonomy, in *TermInput) (*Term, error) {
	var t *Term
	err := db.update(ctx, func(tx kv.RwTx) error {
		w := db.newWriter(tx, a)
		var err error
		if t, err = w.createTerm(tax, 0, in); err != nil {
			return err
		}
		return w.flush()
	})
	if err != nil {
		return nil, fail(OpCreate, tax.DocKind(), 0, err)
	}
	return t, nil
}

// createTerm creates a term with ID id, or the next free ID when id is 0 (newTerm).
func (w *writer) createTerm(tax Taxonomy, id uint64, in *TermInput) (*Term, error) {
	in, err := in.normalized(w.a)
	if err != nil {
		return nil, err
	}
	parent := uint64(0)
	if in.Parent != nil {
		parent = *in.Parent
		if err := checkParent(w.tx, 0, parent); err != nil {
			return nil, err
		}
	}
	terms, err := allTerms(w.tx.GuardedCursor(termBucket(tax)), nil)
	if err != nil {
		return nil, err
	}
	for _, other := range terms {
		if strings.EqualFold(other.Name, *in.Name) && (tax == TaxTag || other.Parent == parent) {
			return nil, &TermExistsError{ID: other.ID}
		}
	}
	// An explicit slug that normalises to nothing gives the ID, not the name's slug (Appendix B 9).
	base := slug.Normalize(*in.Name)
	if in.Slug != nil {
		base = slug.Normalize(*in.Slug)
	}
	t, err := w.newTerm(tax, id, *in.Name, base)
	if err != nil {
		return nil, err
	}
	t.Parent = parent
	setIf(&t.Description, in.Description)
	return t, put(w.tx, termBucket(tax), t.ID, t)
}

// newTerm creates and stores a term with a unique slug derived from base, a normalised slug (the ID when
// empty). id 0 takes the next ID; another keeps the source's ID and moves the sequence past it.
func (w *writer) newTerm(tax Taxonomy, id uint64, name, base string) (*Term, error) {
	var err error
	switch {
	case id == 0:
		if id, err = w.nextID(bSeqTerms); err != nil {
			return nil, err
		}
	case id > w.tx.Sequence(bSeqTerms):
		if err := w.tx.SetSequence(bSeqTerms, id); err != nil {
			return nil, err
		}
	}
	if base == "" {
		base = utoa(id)
	}
	slugs := termSlugBucket(tax)
	candidate := base
	for n := 2; w.tx.Get(slugs, []byte(candidate)) != nil; n++ {
		candidate = slug.WithSuffix(base, n)
	}
	t := &Term{ID: id, Taxonomy: tax, Name: name, Slug: candidate}
	w.created[Doc{Kind: termDocKind(tax), ID: id}] = true
	w.touch(termDocKind(tax), id)
	if err := w.tx.Put(slugs, []byte(candidate), u64(id)); err != nil {
		return nil, err
	}
	return t, put(w.tx, termBucket(tax), id, t)
}

// checkParent verifies that parent may become the parent of category id (0: a new category).
func checkParent(tx kv.Getter, id, parent uint64) error {
	for p := parent; p != 0; {
		if p == id {
			return invalid("parent", "a category cannot be its own ancestor")
		}
		t, err := get[Term](tx, bCategories, p)
		if err == ErrNotFound {
			return invalid("parent", "%d is not the ID of a category", parent)
		}
		if err != nil {
			return err
		}
		p = t.Parent
	}
	return nil
}

// UpdateTerm applies a partial update on behalf of a (see CreateTerm). Returns ErrNotFound,
// ErrDuplicateSlug or a *FieldError.
func (db *DB) UpdateTerm(ctx context.Context, a Actor, tax Taxonomy, id uint64, in *TermInput) (*Term, error) {
	in, err := in.normalized(a)
	if err != nil {
		return nil, fail(OpUpdate, tax.DocKind(), id, err)
	}
	var t *Term
	err = db.update(ctx, func(tx kv.RwTx) error {
		w := db.newWriter(tx, a)
		var changed bool
		var err error
		if t, changed, err = w.updateTerm(tax, id, in); err != nil || !changed {
			return err
		}
		return w.flush()
	})
	if err != nil {
		return nil, fail(OpUpdate, tax.DocKind(), id, err)
	}
	return t, nil
}

// updateTerm applies a normalised update to term id and reports whether it changed anything.
func (w *writer) updateTerm(tax Taxonomy, id uint64, in *TermInput) (*Term, bool, error) {
	t, err := get[Term](w.tx, termBucket(tax), id)
	if err != nil {
		return nil, false, err
	}
	if err := w.checkMirrored(Doc{Kind: tax.DocKind(), ID: id}); err != nil {
		return nil, false, err
	}
	before := *t
	setIf(&t.Name, in.Name)
	setIf(&t.Description, in.Description)
	if in.Parent != nil && tax == TaxCategory {
		if err := checkParent(w.tx, id, *in.Parent); err != nil {
			return nil, false, err
		}
		t.Parent = *in.Parent
	}
	if in.Slug != nil {
		s := slug.Normalize(*in.Slug)
		if s == "" {
			s = utoa(id)
		}
		slugs := termSlugBucket(tax)
		if owner := w.tx.Get(slugs, []byte(s)); owner != nil && beUint(owner) != id {
			return nil, false, ErrDuplicateSlug
		}
		if err := w.tx.Delete(slugs, []byte(t.Slug)); err != nil {
			return nil, false, err
		}
		t.Slug = s
		if err := w.tx.Put(slugs, []byte(s), u64(id)); err != nil {
			return nil, false, err
		}
	}
	if *t == before {
		return t, false, nil
	}
	if err := put(w.tx, termBucket(tax), id, t); err != nil {
		return nil, false, err
	}
	return t, true, w.touchTermEvents(tax, id)
}

// touchTermEvents logs a term and every event that embeds it or, for categories, one of its
// descendants (their URLs and the category filter depend on the tree). An error leaves the change log
// incomplete, so the write must fail with it: the index would keep stale documents.
func (w *writer) touchTermEvents(tax Taxonomy, id uint64) error {
	w.touch(termDocKind(tax), id)
	for _, eid := range linkedIDs(w.tx, bLinkTerm, id) {
		w.touch(DocEvent, eid)
	}
	if tax != TaxCategory {
		return nil
	}
	terms, err := allTerms(w.tx.GuardedCursor(termBucket(tax)), nil)
	if err != nil {
		return err
	}
	for _, child := range terms {
		if child.Parent == id {
			if err := w.touchTermEvents(tax, child.ID); err != nil {
				return err
			}
		}
	}
	return nil
}

// DeleteTerm deletes a term for good: it is removed from every event and its children move up to its
// parent. It returns the term as it was. Returns ErrNotFound.
func (db *DB) DeleteTerm(ctx context.Context, tax Taxonomy, id uint64) (*Term, error) {
	var t *Term
	err := db.update(ctx, func(tx kv.RwTx) error {
		w := db.newWriter(tx, Actor{})
		var err error
		if t, err = w.deleteTerm(tax, id); err != nil {
			return err
		}
		return w.flush()
	})
	if err != nil {
		return nil, fail(OpDelete, tax.DocKind(), id, err)
	}
	return t, nil
}

// deleteTerm deletes term id (DeleteTerm) and returns it as it was.
func (w *writer) deleteTerm(tax Taxonomy, id uint64) (*Term, error) {
	tx := w.tx
	t, err := get[Term](tx, termBucket(tax), id)
	if err != nil {
		return nil, err
	}
	if err := w.checkMirrored(Doc{Kind: tax.DocKind(), ID: id}); err != nil {
		return nil, err
	}
	if err := w.touchTermEvents(tax, id); err != nil {
		return nil, err
	}
	for _, eid := range linkedIDs(tx, bLinkTerm, id) {
		e, err := loadPost[Event](tx, TypeEvent, eid, w.now)
		if err != nil {
			return nil, err
		}
		old, stored := *e, snapshot(e)
		e.Categories, e.Tags = removeID(e.Categories, id), removeID(e.Tags, id)
		if err := w.linkEvent(&old, e); err != nil {
			return nil, err
		}
		if _, err := w.save(e, &old.Post, stored); err != nil {
			return nil, err
		}
	}
	terms, err := allTerms(tx.GuardedCursor(termBucket(tax)), nil)
	if err != nil {
		return nil, err
	}
	for _, child := range terms {
		if child.Parent == id {
			child.Parent = t.Parent
			if err := put(tx, termBucket(tax), child.ID, child); err != nil {
				return nil, err
			}
		}
	}
	if err := tx.Delete(termSlugBucket(tax), []byte(t.Slug)); err != nil {
		return nil, err
	}
	return t, tx.Delete(termBucket(tax), u64(id))
}

// Term returns a term with its ancestors (for its URL). Returns ErrNotFound when the taxonomy has no
// term with that ID.
func (db *DB) Term(ctx context.Context, tax Taxonomy, id uint64) (*Term, *Related, error) {
	var t *Term
	rel := db.newRelated()
	err := db.kv.View(ctx, func(tx kv.Tx) error {
		var err error
		if t, err = get[Term](tx, termBucket(tax), id); err != nil {
			return err
		}
		t.Count += dueTermCounts(tx, db.now())[id]
		return rel.addTerm(tx, tax, id)
	})
	return t, rel, fail(OpGet, tax.DocKind(), id, err)
}

// Terms returns every term of a taxonomy by ID.
func (db *DB) Terms(ctx context.Context, tax Taxonomy) ([]*Term, error) {
	var out []*Term
	err := db.kv.View(ctx, func(tx kv.Tx) (err error) {
		if out, err = allTerms(tx.Cursor(termBucket(tax)), db.terms); err != nil {
			return err
		}
		if due := dueTermCounts(tx, db.now()); due != nil {
			for _, t := range out {
				t.Count += due[t.ID]
			}
		}
		return nil
	})
	return out, err
}

// allTerms reads every term of the term bucket cur walks, through the cache c when it is not nil.
// Inside a write, cur is a guarded cursor (see the package doc's Caveats).
func allTerms(cur kv.Cursor, c *recordCache) ([]*Term, error) {
	var out []*Term
	for k, v := cur.First(); k != nil; k, v = cur.Next() {
		t, err := decode[Term](c, beUint(k), v)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

// resolveTerms turns an event's category or tag items into term IDs (docs/API.md "Event fields"): digits name an ID
// (skipped when no such term exists), anything else an existing slug or name, or a new term.
func (w *writer) resolveTerms(tax Taxonomy, items []string) ([]uint64, error) {
	var ids []uint64
	var terms []*Term
	for _, item := range items {
		id, err := w.resolveTerm(tax, item, &terms)
		if err != nil {
			return nil, err
		}
		if id != 0 && !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	return ids, nil
}

func (w *writer) resolveTerm(tax Taxonomy, item string, terms *[]*Term) (uint64, error) {
	if n, err := strconv.ParseUint(item, 10, 64); err == nil {
		if w.tx.Get(termBucket(tax), u64(n)) == nil {
			return 0, nil
		}
		return n, nil
	}
	if s := slug.Normalize(item); s != "" {
		if id := w.tx.Get(termSlugBucket(tax), []byte(s)); id != nil {
			return beUint(id), nil
		}
	}
	if *terms == nil {
		all, err := allTerms(w.tx.GuardedCursor(termBucket(tax)), nil)
		if err != nil {
			return 0, err
		}
		*terms = all
	}
	for _, t := range *terms { // ordered by ID, so the lowest wins
		if strings.EqualFold(t.Name, item) {
			return t.ID, nil
		}
	}
	// An unknown name creates the term: only for an actor who may create one on the term routes
	// (docs/API.md "Authentication and permissions"), or naming terms in events would be a way round their permissions.
	if !w.a.Can(manageCap(tax)) {
		field := "categories"
		if tax == TaxTag {
			field = "tags"
		}
		return 0, invalid(field, "%s is not a %s, and creating one needs a role that may manage them", quoteShort(item), tax)
	}
	t, err := w.newTerm(tax, 0, item, slug.Normalize(item))
	if err != nil {
		return 0, err
	}
	*terms = append(*terms, t)
	return t.ID, nil
}

// manageCap is the capability that creates, edits and deletes terms of tax.
func manageCap(tax Taxonomy) Cap {
	if tax == TaxTag {
		return CapManageTags
	}
	return CapManageCategories
}

// ResolveTerms finds the terms of a taxonomy named by items, each a term ID (all digits) or slug
// (normalised here), in order. missing is the first item that names no term ("" when all do).
func (db *DB) ResolveTerms(ctx context.Context, tax Taxonomy, items []string) (ids []uint64, missing string, err error) {
	err = db.kv.View(ctx, func(tx kv.Tx) error {
		for _, item := range items {
			if n, err := strconv.ParseUint(item, 10, 64); err == nil {
				if tx.Get(termBucket(tax), u64(n)) != nil {
					ids = append(ids, n)
					continue
				}
			} else if id := tx.Get(termSlugBucket(tax), []byte(slug.Normalize(item))); id != nil {
				ids = append(ids, beUint(id))
				continue
			}
			missing = item
			return nil
		}
		return nil
	})
	return ids, missing, err
}
