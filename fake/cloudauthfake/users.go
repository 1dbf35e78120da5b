package cloudauthfake

import (
	"crypto/subtle"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
)

// UserSeed is an account of the fake gateway: what AddUser and a Seed add,
// and what LookupUser reads back.
type UserSeed struct {
	Username string `json:"username" yaml:"username"`
	Password string `json:"password" yaml:"password"`
	// Tenant is the tenant the user belongs to and must log in to; empty
	// means the fake's default tenant.
	Tenant string   `json:"tenant,omitempty" yaml:"tenant,omitempty"`
	Name   string   `json:"name,omitempty" yaml:"name,omitempty"`
	Email  string   `json:"email,omitempty" yaml:"email,omitempty"`
	Roles  []string `json:"roles,omitempty" yaml:"roles,omitempty"`
	// Locked accounts are refused at login with 401, whatever the password.
	Locked bool `json:"locked,omitempty" yaml:"locked,omitempty"`
}

// Seed is data to load into the fake (Load): its accounts.
type Seed struct {
	Users []UserSeed `json:"users,omitempty" yaml:"users,omitempty"`
}

// Load adds what seed holds, in order. The first refusal stops it; its
// error names the entry ("users[1]: …").
func (s *Server) Load(seed Seed) error {
	for i, u := range seed.Users {
		if err := s.AddUser(u); err != nil {
			return fmt.Errorf("users[%d]: %w", i, err)
		}
	}
	return nil
}

type userKey struct{ tenant, username string }

type user struct {
	UserSeed
}

// AddUser adds an account. A username may exist once per tenant.
func (s *Server) AddUser(u UserSeed) error {
	if strings.TrimSpace(u.Username) == "" || u.Password == "" {
		return errors.New("cloudauthfake: a user needs a username and a password")
	}
	if u.Tenant == "" {
		u.Tenant = s.cfg.defaultTenant
	}
	u.Roles = slices.Clone(u.Roles)
	k := userKey{u.Tenant, u.Username}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, dup := s.users[k]; dup {
		return fmt.Errorf("cloudauthfake: user %q already exists in tenant %q", u.Username, u.Tenant)
	}
	if len(s.users) >= s.maxRecords() {
		return fmt.Errorf("cloudauthfake: the fake keeps at most %d users (control.WithMaxRecords)", s.maxRecords())
	}
	s.users[k] = &user{UserSeed: u}
	return nil
}

// SetLocked locks or unlocks an account (tenant "" is the default tenant).
func (s *Server) SetLocked(tenant, username string, locked bool) error {
	return s.updateUser(tenant, username, func(u *user) { u.Locked = locked })
}

// SetPassword changes an account's password. Tokens already issued stay
// valid.
func (s *Server) SetPassword(tenant, username, password string) error {
	if password == "" {
		return errors.New("cloudauthfake: empty password")
	}
	return s.updateUser(tenant, username, func(u *user) { u.Password = password })
}

// LookupUser returns an account as the fake holds it.
func (s *Server) LookupUser(tenant, username string) (UserSeed, bool) {
	if tenant == "" {
		tenant = s.cfg.defaultTenant
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	u, ok := s.users[userKey{tenant, username}]
	if !ok {
		return UserSeed{}, false
	}
	out := u.UserSeed
	out.Roles = slices.Clone(u.Roles)
	return out, true
}

func (s *Server) updateUser(tenant, username string, fn func(*user)) error {
	if tenant == "" {
		tenant = s.cfg.defaultTenant
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	u, ok := s.users[userKey{tenant, username}]
	if !ok {
		return fmt.Errorf("%w: %q in tenant %q", errUnknownUser, username, tenant)
	}
	fn(u)
	return nil
}

// checkLogin checks credentials and returns the issuer of the token to
// issue. Every refusal is the same, so that the answer does not tell which
// part was wrong.
func (s *Server) checkLogin(r *http.Request, tenant, username, password string) (iss string, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	u, found := s.users[userKey{tenant, username}]
	if !found {
		// Compare anyway, so an unknown user takes as long as a wrong
		// password.
		subtle.ConstantTimeCompare([]byte(password), []byte(password))
		return "", false
	}
	if subtle.ConstantTimeCompare([]byte(password), []byte(u.Password)) != 1 || u.Locked {
		return "", false
	}
	return s.issuerLocked(r), true
}
