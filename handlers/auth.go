package handlers

import (
	"encoding/base64"
	"errors"
	"strings"

	"go.uber.org/zap"

	"github.com/calendard/calendard/storage"
)

// authenticate resolves the Authorization header into the request's actor (docs/API.md "Authentication and permissions"). No
// header, or a scheme other than Basic or Bearer, leaves the caller anonymous. A client that failed
// too often with the login it presents gets 429, whatever its password, without a store lookup.
func (h *Handler) authenticate(rq *request) error {
	scheme, cred, _ := strings.Cut(strings.TrimSpace(rq.r.Header.Get("Authorization")), " ")
	cred = strings.TrimSpace(cred)
	var bearer, parsed bool
	var name, password string
	switch strings.ToLower(scheme) {
	case "basic":
		// An unparseable value has no name: its failures count under the empty one.
		name, password, parsed = decodeBasic(cred)
	case "bearer":
		bearer = true
	default:
		return nil
	}
	var failed bool
	if h.failures != nil {
		key := h.failures.key(h.clientAddr(rq.r), bearer, name)
		if wait := h.failures.begin(key, rq.now); wait > 0 {
			return tooManyRequests(wait)
		}
		// Deferred, so that an attempt that panics still hands its reservation back.
		defer func() {
			if h.failures.end(key, rq.now, failed) {
				h.logThrottled(rq, bearer, name)
			}
		}()
	}
	var user *storage.User
	var err error
	switch {
	case bearer:
		user, err = h.db.AuthenticateBearer(rq.r.Context(), cred)
	case !parsed:
		err = &storage.AuthError{Code: storage.AuthInvalidUsername}
	default:
		user, err = h.db.AuthenticateBasic(rq.r.Context(), name, password)
	}
	if failed = errors.As(err, new(*storage.AuthError)); err != nil {
		if failed && user != nil && h.failures != nil {
			h.countOtherName(rq, user, name)
		}
		return err
	}
	rq.actor = storage.Actor{UserID: user.ID, Role: user.Role}
	return nil
}

// countOtherName counts a wrong password given with one of user's names (login, e-mail) against the
// other as well, so that an account has one count of failures whichever name its guesser uses. The
// two keys count the same failures, so the name given logs the episode, once.
func (h *Handler) countOtherName(rq *request, user *storage.User, name string) {
	other := user.Login
	if strings.EqualFold(name, user.Login) {
		other = user.Email
	}
	h.failures.end(h.failures.key(h.clientAddr(rq.r), false, other), rq.now, true)
}

// logThrottled records that a key started being throttled, once per episode (failureTable). The login
// is the attacker's text: it is cut short, so that a flood of long ones cannot flood the log.
func (h *Handler) logThrottled(rq *request, bearer bool, login string) {
	const maxLogged = 64
	if bearer {
		login = "(bearer)"
	} else if len(login) > maxLogged {
		login = strings.ToValidUTF8(login[:maxLogged], "") + "…"
	}
	h.log.Warn("failed authentications throttled", zap.String("addr", h.clientAddr(rq.r)), zap.String("login", login),
		zap.Int("failures_per_minute", h.failures.n), zap.String("request_id", rq.id))
}

// decodeBasic splits a Basic value into name and password; a value that is not base64 of name:password
// has neither (docs/API.md "Authentication and permissions"'s "unparseable").
func decodeBasic(cred string) (name, password string, ok bool) {
	raw, err := base64.StdEncoding.DecodeString(cred)
	if err != nil {
		return "", "", false
	}
	if name, password, ok = strings.Cut(string(raw), ":"); !ok {
		return "", "", false
	}
	return name, password, true
}

// need is a route-level capability check (docs/API.md "Authentication and permissions").
func need(caps ...storage.Cap) func(*request, *route) bool {
	return func(rq *request, _ *route) bool {
		for _, c := range caps {
			if !rq.actor.Can(c) {
				return false
			}
		}
		return true
	}
}

// onRecord is the route-level check of a write on one record (docs/API.md "Authentication and permissions"): may, the caller's right
// on the record rt's path designates, or capability c when it designates none. Every role with a right
// on some record holds c, so callers without it are refused before any lookup.
func onRecord(may func(storage.Actor, *storage.Post) bool, c storage.Cap) func(*request, *route) bool {
	return func(rq *request, rt *route) bool {
		if !rq.actor.Can(c) {
			return false
		}
		if p := rt.record(rq); p != nil {
			return may(rq.actor, p)
		}
		return true
	}
}

// require fails with storage.ErrForbidden unless the caller holds every capability.
func (rq *request) require(caps ...storage.Cap) error {
	if !need(caps...)(rq, nil) {
		return storage.ErrForbidden
	}
	return nil
}
