package storage

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode"

	"github.com/calendard/calendard/storage/kv"
)

// AppPasswordLen is the length of an application password (docs/API.md "Authentication and permissions").
const AppPasswordLen = 24

const appPasswordAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

// AppPassword is the stored, secret-free description of an application password.
type AppPassword struct {
	UserID  uint64    `json:"user"`
	Name    string    `json:"name"`
	Created time.Time `json:"created"`
}

// NewAppPassword generates a fresh application password.
func NewAppPassword() string {
	var b [AppPasswordLen]byte
	// rand.Text-style rejection sampling keeps the alphabet uniform.
	for i := 0; i < len(b); {
		var r [1]byte
		if _, err := rand.Read(r[:]); err != nil {
			panic(err) // crypto/rand never fails on supported platforms
		}
		if int(r[0]) < 256/len(appPasswordAlphabet)*len(appPasswordAlphabet) {
			b[i] = appPasswordAlphabet[int(r[0])%len(appPasswordAlphabet)]
			i++
		}
	}
	return string(b[:])
}

// CleanAppPassword drops every character outside [A-Za-z0-9], so that the grouped form
// "abcd efgh …" verifies (docs/API.md "Authentication and permissions").
func CleanAppPassword(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 128 && strings.ContainsRune(appPasswordAlphabet, r) {
			return r
		}
		return -1
	}, s)
}

// ValidAppPassword reports whether s (after CleanAppPassword) has the form of an application password.
func ValidAppPassword(s string) bool { return len(s) == AppPasswordLen && CleanAppPassword(s) == s }

// passwordKey is a keyed SHA-256 of the password. Application passwords carry ≈143 bits of entropy,
// so a fast keyed hash is as safe as a slow one and keeps authentication off the request's critical
// path; the key lives in the store, so a leaked hash alone is not enough to test guesses.
func (db *DB) passwordKey(password string) []byte {
	m := hmac.New(sha256.New, db.hashKey)
	m.Write([]byte(password))
	return m.Sum(nil)
}

// validEmail accepts name@domain without blanks or control characters: enough to tell an address from
// a slip, without the quoted forms of RFC 5322 that nobody logs in with. A domain without a dot
// (admin@localhost) is an address.
func validEmail(s string) bool {
	name, domain, ok := strings.Cut(s, "@")
	return ok && name != "" && domain != "" && !strings.Contains(domain, "@") &&
		!strings.ContainsFunc(s, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) })
}

// CreateUser adds a user. Returns a *FieldError when the login or e-mail is malformed or taken, or the
// role is unknown.
func (db *DB) CreateUser(ctx context.Context, u User) (*User, error) {
	u.Login = strings.TrimSpace(u.Login)
	u.Email = strings.TrimSpace(u.Email)
	switch {
	case u.Login == "":
		return nil, invalid("login", "must not be empty")
	case strings.ContainsFunc(u.Login, func(r rune) bool { return r == ':' || unicode.IsControl(r) }):
		// Basic credentials end the login at the first colon.
		return nil, invalid("login", "must not contain a colon or control characters")
	case !validEmail(u.Email):
		return nil, invalid("email", "must be an e-mail address (name@domain)")
	case !ValidRole(u.Role):
		return nil, invalid("role", "must be one of administrator, editor, author, contributor, subscriber")
	}
	if u.DisplayName == "" {
		u.DisplayName = u.Login
	}
	err := db.update(ctx, func(tx kv.RwTx) error {
		if tx.Get(bUserLogins, []byte(strings.ToLower(u.Login))) != nil {
			return invalid("login", "is taken")
		}
		if tx.Get(bUserEmails, []byte(strings.ToLower(u.Email))) != nil {
			return invalid("email", "is taken")
		}
		id, err := tx.NextSequence(bUsers)
		if err != nil {
			return err
		}
		u.ID = id
		if err := put(tx, bUsers, id, u); err != nil {
			return err
		}
		if err := tx.Put(bUserLogins, []byte(strings.ToLower(u.Login)), u64(id)); err != nil {
			return err
		}
		return tx.Put(bUserEmails, []byte(strings.ToLower(u.Email)), u64(id))
	})
	if err != nil {
		return nil, fmt.Errorf("storage: create user: %w", err)
	}
	return &u, nil
}

// Users lists every user by ID.
func (db *DB) Users(ctx context.Context) ([]User, error) { return all[User](ctx, db, bUsers) }

// User returns the user with the given ID, or ErrNotFound.
func (db *DB) User(ctx context.Context, id uint64) (*User, error) {
	var u *User
	err := db.kv.View(ctx, func(tx kv.Tx) (err error) {
		u, err = get[User](tx, bUsers, id)
		return err
	})
	return u, err
}

// userByName finds a user by login, or by e-mail when byEmail is set.
func userByName(tx kv.Getter, name string, byEmail bool) (*User, error) {
	idx := bUserLogins
	if byEmail {
		idx = bUserEmails
	}
	v := tx.Get(idx, []byte(strings.ToLower(name)))
	if v == nil {
		return nil, ErrNotFound
	}
	return get[User](tx, bUsers, beUint(v))
}

// CreateAppPassword generates an application password for the user with the given login and returns it;
// only its keyed hash is stored. Returns ErrNotFound for an unknown login, a *FieldError for a name the
// user already uses.
func (db *DB) CreateAppPassword(ctx context.Context, login, name string) (string, error) {
	return db.addAppPassword(ctx, login, name, NewAppPassword())
}

// AddAppPassword stores a given application password (the first administrator's, from configuration).
func (db *DB) AddAppPassword(ctx context.Context, login, name, password string) error {
	if !ValidAppPassword(password) {
		return invalid("password", "must be 24 characters from [A-Za-z0-9]")
	}
	_, err := db.addAppPassword(ctx, login, name, password)
	return err
}

func (db *DB) addAppPassword(ctx context.Context, login, name, password string) (string, error) {
	err := db.update(ctx, func(tx kv.RwTx) error {
		u, err := userByName(tx, login, false)
		if err != nil {
			return err
		}
		c := tx.GuardedCursor(bAppPasswords)
		for k, v := c.First(); k != nil; k, v = c.Next() {
			var ap AppPassword
			if json.Unmarshal(v, &ap) == nil && ap.UserID == u.ID && ap.Name == name {
				return invalid("name", "is already used by an application password of this user")
			}
		}
		v, err := json.Marshal(AppPassword{UserID: u.ID, Name: name, Created: db.now().UTC()})
		if err != nil {
			return err
		}
		return tx.Put(bAppPasswords, db.passwordKey(password), v)
	})
	if err != nil {
		return "", fmt.Errorf("storage: create application password: %w", err)
	}
	return password, nil
}

// RevokeAppPassword deletes the named application password of a user. Returns ErrNotFound if the user
// or the password does not exist.
func (db *DB) RevokeAppPassword(ctx context.Context, login, name string) error {
	return db.update(ctx, func(tx kv.RwTx) error {
		u, err := userByName(tx, login, false)
		if err != nil {
			return err
		}
		c := tx.GuardedCursor(bAppPasswords)
		for k, v := c.First(); k != nil; k, v = c.Next() {
			var ap AppPassword
			if err := json.Unmarshal(v, &ap); err != nil {
				return err
			}
			if ap.UserID == u.ID && ap.Name == name {
				return tx.Delete(bAppPasswords, k)
			}
		}
		return ErrNotFound
	})
}

// AuthError says why credentials were rejected (docs/API.md "Authentication and permissions").
type AuthError struct{ Code string }

func (e *AuthError) Error() string { return "storage: authentication failed: " + e.Code }

// Is reports whether target is an *AuthError with the same Code: errors.Is tells the reasons apart,
// which clients are told (docs/API.md "Authentication and permissions").
func (e *AuthError) Is(target error) bool {
	t, ok := target.(*AuthError)
	return ok && t.Code == e.Code
}

// Authentication failure codes.
const (
	AuthInvalidUsername   = "invalid_username"
	AuthInvalidEmail      = "invalid_email"
	AuthIncorrectPassword = "incorrect_password"
	AuthInvalidToken      = "invalid_token"
)

// AuthenticateBasic checks a login (or e-mail) and application password. Returns an *AuthError when
// they do not match; with AuthIncorrectPassword, the user the name designates too, so that a caller
// counts a failure against the account, whichever of its names it was given.
func (db *DB) AuthenticateBasic(ctx context.Context, name, password string) (*User, error) {
	var user *User
	err := db.kv.View(ctx, func(tx kv.Tx) error {
		byEmail := strings.Contains(name, "@")
		u, err := userByName(tx, name, byEmail)
		if byEmail && err == ErrNotFound {
			// A login may contain '@' too: only when neither matches is it an unknown e-mail.
			if u, err = userByName(tx, name, false); err == ErrNotFound {
				return &AuthError{AuthInvalidEmail}
			}
		}
		if err == ErrNotFound {
			return &AuthError{AuthInvalidUsername}
		}
		if err != nil {
			return err
		}
		user = u
		ap, err := db.appPassword(tx, password)
		if err == ErrNotFound || err == nil && ap.UserID != u.ID {
			return &AuthError{AuthIncorrectPassword}
		}
		return err
	})
	return user, err
}

// AuthenticateBearer finds the user owning an application password. Returns an *AuthError when none
// does.
func (db *DB) AuthenticateBearer(ctx context.Context, password string) (*User, error) {
	var user *User
	err := db.kv.View(ctx, func(tx kv.Tx) error {
		ap, err := db.appPassword(tx, password)
		if err == ErrNotFound {
			return &AuthError{AuthInvalidToken}
		}
		if err != nil {
			return err
		}
		user, err = get[User](tx, bUsers, ap.UserID)
		return err
	})
	return user, err
}

// appPassword finds an application password by its keyed hash. No constant-time comparison is needed
// here: the B+tree lookup compares digests byte by byte, so its timing may tell how many leading bytes
// of the candidate's HMAC match a stored one, but without the key those bytes say nothing about the
// password, and a guess cannot be steered towards a digest. The early return on length leaks only the
// length, which is public (AppPasswordLen). What does differ in time, a known or unknown login, is told
// openly by the error codes anyway (docs/API.md "Authentication and permissions").
func (db *DB) appPassword(tx kv.Getter, password string) (*AppPassword, error) {
	password = CleanAppPassword(password)
	if len(password) != AppPasswordLen {
		return nil, ErrNotFound
	}
	v := tx.Get(bAppPasswords, db.passwordKey(password))
	if v == nil {
		return nil, ErrNotFound
	}
	var ap AppPassword
	if err := json.Unmarshal(v, &ap); err != nil {
		return nil, err
	}
	return &ap, nil
}
