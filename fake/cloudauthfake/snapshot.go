package cloudauthfake

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/apitwin/apitwin/internal/fakekit"
)

// SnapshotFormat and SnapshotVersion name the shape of the fake's
// snapshots; Restore reads this version only.
const (
	SnapshotFormat  = "cloudauthfake"
	SnapshotVersion = 1
)

type snapshot struct {
	fakekit.SnapshotHeader
	Users   []UserSeed    `json:"users"`
	Revoked []snapRevoked `json:"revoked"`
	Issued  int           `json:"issued"`
	// APITokens are the API tokens not revoked nor expired, by their
	// SHA-256 (the snapshot holds no token a caller could present).
	APITokens []snapAPIToken `json:"api_tokens,omitempty"`
}

type snapAPIToken struct {
	SHA256   string                `json:"sha256"`
	Tenant   string                `json:"tenant"`
	Username string                `json:"username"`
	Expires  *fakekit.SnapshotTime `json:"expires,omitempty"`
}

// snapRevoked is a token logged out: its id, and its expiry, after which
// it need not be remembered.
type snapRevoked struct {
	ID      string               `json:"id"`
	Expires fakekit.SnapshotTime `json:"expires"`
}

// Snapshot returns the fake's state as versioned JSON, which Restore
// reads back into this fake or another, for a program that keeps it across restarts (apitwin-fake -state-dir): the accounts of
// every tenant, the tokens logged out before they expired (so a revoked
// token stays refused), how many tokens were issued, and the API tokens
// neither revoked nor expired (by their SHA-256 alone). The signing keys
// are not in it: they are the fake's configuration (WithKey), which a
// program keeps with its credentials, and a token verifies after a restore
// only when the fake signs with the key that signed it. Faults and the
// request log are not state and are not kept. A snapshot holds every
// account's password: keep it private.
func (s *Server) Snapshot() ([]byte, error) {
	snap := snapshot{SnapshotHeader: fakekit.SnapshotHeader{Format: SnapshotFormat, Version: SnapshotVersion},
		Users: []UserSeed{}, Revoked: []snapRevoked{}}
	s.mu.Lock()
	now := s.cfg.clock.Now()
	for _, u := range s.users {
		us := u.UserSeed
		us.Roles = slices.Clone(us.Roles)
		snap.Users = append(snap.Users, us)
	}
	for id, exp := range s.revoked {
		if now.Before(exp) { // an expired token is refused anyway
			snap.Revoked = append(snap.Revoked, snapRevoked{ID: id, Expires: fakekit.SnapshotTime(exp)})
		}
	}
	snap.Issued = s.issued
	for h, t := range s.apiTokens {
		if t.Expires.IsZero() || now.Before(t.Expires) {
			st := snapAPIToken{SHA256: h, Tenant: t.Tenant, Username: t.Username}
			if !t.Expires.IsZero() {
				e := fakekit.SnapshotTime(t.Expires)
				st.Expires = &e
			}
			snap.APITokens = append(snap.APITokens, st)
		}
	}
	s.mu.Unlock()
	// Map order is random: sorted, two snapshots of one state are equal.
	slices.SortFunc(snap.Users, func(a, b UserSeed) int {
		return cmp.Or(cmp.Compare(a.Tenant, b.Tenant), cmp.Compare(a.Username, b.Username))
	})
	slices.SortFunc(snap.Revoked, func(a, b snapRevoked) int { return cmp.Compare(a.ID, b.ID) })
	slices.SortFunc(snap.APITokens, func(a, b snapAPIToken) int { return cmp.Compare(a.SHA256, b.SHA256) })
	return fakekit.EncodeSnapshot(snap)
}

// Restore replaces the fake's accounts, revoked tokens and count of issued
// tokens with a snapshot's (see Snapshot). The admin account keeps the
// password of this fake (WithAdminPassword), whatever the snapshot says,
// so that the password a program prints is the one that works. A snapshot
// of another format or version, or one that does not hold together (an
// account twice, or without a username or password), is refused with an
// error and changes nothing. The keys, faults and the request log stay.
func (s *Server) Restore(data []byte) error {
	var snap snapshot
	if err := fakekit.DecodeSnapshot(data, SnapshotFormat, SnapshotVersion, &snap); err != nil {
		return fmt.Errorf("cloudauthfake: %w", err)
	}
	users := map[userKey]*user{}
	for i, u := range snap.Users {
		if strings.TrimSpace(u.Username) == "" || u.Password == "" || u.Tenant == "" {
			return fmt.Errorf("cloudauthfake: snapshot: users[%d]: a user needs a username, a password and a tenant", i)
		}
		k := userKey{u.Tenant, u.Username}
		if users[k] != nil {
			return fmt.Errorf("cloudauthfake: snapshot: users[%d]: %q twice in tenant %q", i, u.Username, u.Tenant)
		}
		u.Roles = slices.Clone(u.Roles)
		users[k] = &user{UserSeed: u}
	}
	if admin := users[userKey{s.cfg.defaultTenant, AdminUsername}]; admin != nil {
		admin.Password = s.cfg.adminPassword
	}
	revoked := make(map[string]time.Time, len(snap.Revoked))
	for i, r := range snap.Revoked {
		if r.ID == "" {
			return fmt.Errorf("cloudauthfake: snapshot: revoked[%d]: no token id", i)
		}
		revoked[r.ID] = r.Expires.Time()
	}
	apiTokens := make(map[string]*apiToken, len(snap.APITokens))
	for i, t := range snap.APITokens {
		if len(t.SHA256) != 64 || strings.Trim(t.SHA256, "0123456789abcdef") != "" || t.Username == "" || t.Tenant == "" {
			return fmt.Errorf("cloudauthfake: snapshot: api_tokens[%d]: want a sha256 in hex, a tenant and a username", i)
		}
		at := &apiToken{Tenant: t.Tenant, Username: t.Username}
		if t.Expires != nil {
			at.Expires = t.Expires.Time()
		}
		apiTokens[t.SHA256] = at
	}
	if snap.Issued < 0 {
		return fmt.Errorf("cloudauthfake: snapshot: issued %d is negative", snap.Issued)
	}
	s.mu.Lock()
	s.users, s.revoked, s.issued, s.apiTokens = users, revoked, snap.Issued, apiTokens
	s.mu.Unlock()
	return nil
}
