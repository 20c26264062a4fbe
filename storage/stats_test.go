package storage

import (
	"context"
	"testing"
)

func TestFileSize(t *testing.T) {
	db := mustOpenDB(t)
	before, err := db.FileSize()
	if err != nil || before <= 0 {
		t.Fatalf("FileSize() = %d, %v; want a positive size", before, err)
	}
	ctx := context.Background()
	for i := range 200 {
		if _, err := db.CreateUser(ctx, User{Login: "user" + utoa(uint64(i)), Email: "u" + utoa(uint64(i)) + "@example.org", Role: RoleAuthor}); err != nil {
			t.Fatal(err)
		}
	}
	if after, err := db.FileSize(); err != nil || after <= before {
		t.Errorf("after 200 users FileSize() = %d, %v; want more than %d", after, err, before)
	}
}
