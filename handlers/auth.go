package handlers

import (
	"encoding/base64"
	"errors"
	"net/http"
	"strings"

	"github.com/calendard/calendard/storage"
)

// authenticate resolves the Authorization header into the request's actor (CONTRACT 7.2, 7.3). No
// header, or a scheme other than Basic or Bearer, leaves the caller anonymous.
func (h *Handler) authenticate(rq *request) error {
	scheme, cred, _ := strings.Cut(strings.TrimSpace(rq.r.Header.Get("Authorization")), " ")
	cred = strings.TrimSpace(cred)
	var user *storage.User
	var err error
	switch strings.ToLower(scheme) {
	case "basic":
		name, password, ok := decodeBasic(cred)
		if !ok {
			return authFailed(storage.AuthInvalidUsername)
		}
		user, err = h.db.AuthenticateBasic(rq.r.Context(), name, password)
	case "bearer":
		user, err = h.db.AuthenticateBearer(rq.r.Context(), cred)
	default:
		return nil
	}
	var ae *storage.AuthError
	if errors.As(err, &ae) {
		return authFailed(ae.Code)
	}
	if err != nil {
		return err
	}
	rq.actor = storage.Actor{UserID: user.ID, Role: user.Role}
	return nil
}

func decodeBasic(cred string) (name, password string, ok bool) {
	raw, err := base64.StdEncoding.DecodeString(cred)
	if err != nil {
		return "", "", false
	}
	return strings.Cut(string(raw), ":")
}

var authMessages = map[string]string{
	storage.AuthInvalidUsername:   "Unknown username or malformed credentials.",
	storage.AuthInvalidEmail:      "Unknown email address.",
	storage.AuthIncorrectPassword: "The provided password is an invalid application password.",
	storage.AuthInvalidToken:      "The provided token is not a valid application password.",
}

func authFailed(code string) *apiError {
	return newError(http.StatusUnauthorized, code, authMessages[code])
}

// need is a route-level capability check (CONTRACT 7.6).
func need(caps ...storage.Cap) func(*request, func() *storage.Post) bool {
	return func(rq *request, _ func() *storage.Post) bool {
		for _, c := range caps {
			if !rq.actor.Can(c) {
				return false
			}
		}
		return true
	}
}

// onRecord is the route-level check of a write on one record (CONTRACT 7.6): may, the caller's right
// on the record, or capability c when the path designates no record. Every role with a right on some
// record holds c, so callers without it are refused before any lookup.
func onRecord(may func(storage.Actor, *storage.Post) bool, c storage.Cap) func(*request, func() *storage.Post) bool {
	return func(rq *request, record func() *storage.Post) bool {
		if !rq.actor.Can(c) {
			return false
		}
		if p := record(); p != nil {
			return may(rq.actor, p)
		}
		return true
	}
}

// require fails with rest_forbidden unless the caller holds every capability.
func (rq *request) require(caps ...storage.Cap) error {
	if !need(caps...)(rq, nil) {
		return forbidden(rq)
	}
	return nil
}
