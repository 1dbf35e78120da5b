package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/apitwin/apitwin/cloudauth"
)

// credential is what cloudctl keeps in the token store for a profile: the
// access token and, after a login with an API token (auth login
// --with-token), the token to renew it with. Without a refresh token it
// is stored as the bare access token, the form every cloudctl before
// wrote and reads; with one, as {"access_token","refresh_token"}.
type credential struct {
	AccessToken  string `json:"access_token"`
	RefreshToken string `json:"refresh_token,omitempty"`
}

// String shows neither token.
func (c credential) String() string {
	return fmt.Sprintf("credential{AccessToken: %s, RefreshToken: %s}", redacted(c.AccessToken), redacted(c.RefreshToken))
}

// GoString is String.
func (c credential) GoString() string { return c.String() }

func redacted(s string) string {
	if s == "" {
		return `""`
	}
	return "[REDACTED]"
}

// decodeCredential reads what the store holds: the JSON form, or a bare
// access token.
func decodeCredential(stored string) (credential, error) {
	if !strings.HasPrefix(strings.TrimSpace(stored), "{") {
		return credential{AccessToken: stored}, nil
	}
	var c credential
	if err := json.Unmarshal([]byte(stored), &c); err != nil || c.AccessToken == "" {
		return credential{}, errors.New("the stored token is neither a token nor cloudctl's {access_token, refresh_token}")
	}
	return c, nil
}

// encode is the form stored.
func (c credential) encode() string {
	if c.RefreshToken == "" {
		return c.AccessToken
	}
	b, _ := json.Marshal(c) // two strings: cannot fail
	return string(b)
}

// loadCredential reads a profile's stored credential.
func (a *app) loadCredential(key string) (credential, error) {
	stored, err := a.store.Load(key)
	if err != nil {
		return credential{}, err
	}
	return decodeCredential(stored)
}

// saveCredential stores a profile's credential. A store that kept it only
// in its fallback file says the specification's warning, once, and is not
// an error.
func (a *app) saveCredential(key string, c credential) error {
	err := a.store.Save(key, c.encode())
	if err == nil {
		return nil
	}
	var w *cloudauth.InsecureStorageError
	if !errors.As(err, &w) {
		return err
	}
	a.warnf("%v (%s)", w, keyringReason(w.Err))
	if w.Location != "" {
		a.debugf("the token is kept in %s, readable only by you", w.Location)
	}
	return nil
}

// renewIfDue renews a stored credential's access token when it has
// expired (or expires within cloudauth.RenewBefore) and a refresh token is
// stored, as gh renews a token it can: the new tokens are stored and the
// new access token returned. A token that needs no renewal, or cannot be
// renewed (no refresh token, no server URL), comes back as it was; a
// renewal the server refuses is said as a warning and the old token comes
// back, for the command to report as expired.
func (a *app) renewIfDue(ctx context.Context, s *cloudauth.Settings, key string, c credential) credential {
	if c.RefreshToken == "" || s.URL == "" {
		return c
	}
	tok, err := cloudauth.ParseToken(c.AccessToken)
	if err == nil && tok.TimeLeft(a.env.Clock.Now()) > cloudauth.RenewBefore {
		return c
	}
	renewed, err := a.renew(ctx, s, key, c.RefreshToken)
	if err != nil {
		a.warnf("the token of profile %s has expired and could not be renewed: %v", key, err)
		return c
	}
	return renewed
}

// renew exchanges a refresh token for a new access token and stores both.
func (a *app) renew(ctx context.Context, s *cloudauth.Settings, key, refresh string) (credential, error) {
	client, err := a.client(s)
	if err != nil {
		return credential{}, err
	}
	g, err := client.AuthorizeAPIToken(ctx, refresh)
	if err != nil {
		return credential{}, err
	}
	c := credential{AccessToken: g.AccessToken.Raw(), RefreshToken: g.RefreshToken()}
	if err := ctx.Err(); err != nil {
		return credential{}, err
	}
	if err := a.saveCredential(key, c); err != nil {
		return credential{}, fmt.Errorf("renewed, but the token could not be stored: %w", err)
	}
	a.debugf("renewed the token of profile %s with the stored refresh token; it expires at %s", key, describeExpiry(g.AccessToken, a.env.Clock.Now()))
	return c, nil
}
