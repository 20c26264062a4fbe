package storage

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/calendard/calendard/storage/kv"
)

var (
	bMeta         = []byte("meta")
	bSeqPosts     = []byte("sequences/posts")
	bSeqTerms     = []byte("sequences/terms")
	bSeqGroups    = []byte("sequences/groups")
	bEvents       = []byte("events")
	bVenues       = []byte("venues")
	bOrganizers   = []byte("organizers")
	bImages       = []byte("images")
	bImageURLs    = []byte("image_urls")
	bCategories   = []byte("categories")
	bTags         = []byte("tags")
	bLinkVenue    = []byte("links/venue")
	bLinkOrg      = []byte("links/organizer")
	bLinkTerm     = []byte("links/term")
	bSeries       = []byte("links/series")
	bParents      = []byte("series")
	bScheduled    = []byte("scheduled")
	bGroups       = []byte("groups")
	bOutbox       = []byte("outbox")
	bOutboxMarks  = []byte("outbox_marks")
	bExternal     = []byte("external_ids")
	bExternalDocs = []byte("external_docs")
	bOrigins      = []byte("origins")
	bUsers        = []byte("users")
	bUserLogins   = []byte("user_logins")
	bUserEmails   = []byte("user_emails")
	bAppPasswords = []byte("app_passwords")
	bWebhooks     = []byte("webhooks")

	kSchema     = []byte("schema")
	kHashKey    = []byte("hashkey")
	kSpaceProbe = []byte("spaceprobe")
)

var topBuckets = func() []string {
	names := []string{}
	for _, b := range [][]byte{bMeta, bSeqPosts, bSeqTerms, bSeqGroups, bEvents, bVenues, bOrganizers, bImages, bImageURLs,
		bCategories, bTags, bLinkVenue, bLinkOrg, bLinkTerm, bSeries, bParents, bScheduled, bGroups, bOutbox, bOutboxMarks, bExternal, bExternalDocs, bOrigins, bUsers, bUserLogins,
		bUserEmails, bAppPasswords, bWebhooks} {
		names = append(names, string(b))
	}
	for _, t := range []PostType{TypeEvent, TypeVenue, TypeOrganizer} {
		for _, l := range Langs {
			names = append(names, string(slugBucket(t, l)), string(trashSlugBucket(t, l)), string(nameBucket(t, l)))
		}
	}
	for _, tax := range []Taxonomy{TaxCategory, TaxTag} {
		names = append(names, string(termSlugBucket(tax)))
	}
	return names
}()

func slugBucket(t PostType, l Lang) []byte { return []byte("slugs/" + t.String() + "/" + string(l)) }
func trashSlugBucket(t PostType, l Lang) []byte {
	return []byte("trashslugs/" + t.String() + "/" + string(l))
}
func nameBucket(t PostType, l Lang) []byte { return []byte("names/" + t.String() + "/" + string(l)) }
func termSlugBucket(tax Taxonomy) []byte   { return []byte(fmt.Sprintf("termslugs/%d", tax)) }

func postBucket(t PostType) []byte {
	switch t {
	case TypeEvent:
		return bEvents
	case TypeVenue:
		return bVenues
	case TypeOrganizer:
		return bOrganizers
	}
	return bImages
}

func termBucket(tax Taxonomy) []byte {
	if tax == TaxCategory {
		return bCategories
	}
	return bTags
}

func beUint(b []byte) uint64 { return binary.BigEndian.Uint64(b) }

func u64(v uint64) []byte { return binary.BigEndian.AppendUint64(nil, v) }

func pair(a, b uint64) []byte { return binary.BigEndian.AppendUint64(u64(a), b) }

func get[T any](tx kv.Getter, bucket []byte, id uint64) (*T, error) {
	v := tx.Get(bucket, u64(id))
	if v == nil {
		return nil, ErrNotFound
	}
	var rec T
	if err := json.Unmarshal(v, &rec); err != nil {
		return nil, fmt.Errorf("storage: decode %s %d: %w", bucket, id, err)
	}
	return &rec, nil
}

// all reads every record of bucket, by ID, in one read transaction.
func all[T any](ctx context.Context, db *DB, bucket []byte) ([]T, error) {
	var out []T
	err := db.kv.View(ctx, func(tx kv.Tx) error {
		out = nil // a store may run a read again
		c := tx.Cursor(bucket)
		for k, v := c.First(); k != nil; k, v = c.Next() {
			var rec T
			if err := json.Unmarshal(v, &rec); err != nil {
				return fmt.Errorf("storage: decode %s %d: %w", bucket, beUint(k), err)
			}
			out = append(out, rec)
		}
		return nil
	})
	return out, err
}

func put(tx kv.RwTx, bucket []byte, id uint64, rec any) error {
	v, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("storage: encode %s %d: %w", bucket, id, err)
	}
	return tx.Put(bucket, u64(id), v)
}

// postTypeOf reports which kind of record holds id, or ErrNotFound.
func postTypeOf(tx kv.Getter, id uint64) (PostType, error) {
	for _, t := range []PostType{TypeEvent, TypeVenue, TypeOrganizer, TypeImage} {
		if tx.Get(postBucket(t), u64(id)) != nil {
			return t, nil
		}
	}
	return 0, ErrNotFound
}

// linkedIDs lists the second halves of the keys of bucket that start with id, inside a write: a
// guarded range read (see the package doc's Caveats).
func linkedIDs(tx kv.RwTx, bucket []byte, id uint64) []uint64 {
	var ids []uint64
	prefix := u64(id)
	c := tx.GuardedCursor(bucket)
	for k, _ := c.Seek(prefix); len(k) == 16 && binary.BigEndian.Uint64(k) == id; k, _ = c.Next() {
		ids = append(ids, binary.BigEndian.Uint64(k[8:]))
	}
	return ids
}

func utoa(v uint64) string { return strconv.FormatUint(v, 10) }
