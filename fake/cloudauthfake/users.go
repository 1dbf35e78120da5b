package cloudauthfake

import (
	"crypto/subtle"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// User is an account of the fake gateway.
type User struct {
	Username string
	Password string
	// Tenant is the tenant the user belongs to and must log in to; empty
	// means the fake's default tenant.
	Tenant string
	Name   string
	Email  string
	Roles  []string
	// Locked accounts are refused at login with 401, whatever the password.
	Locked bool
}

type userKey struct{ tenant, username string }

type user struct {
	User
}

// AddUser adds an account. A username may exist once per tenant.
func (s *Server) AddUser(u User) error {
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
	s.users[k] = &user{User: u}
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
func (s *Server) LookupUser(tenant, username string) (User, bool) {
	if tenant == "" {
		tenant = s.cfg.defaultTenant
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	u, ok := s.users[userKey{tenant, username}]
	if !ok {
		return User{}, false
	}
	out := u.User
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

// authenticate checks credentials; s.mu must be held. The reason is for
// the fake's own error message, which is the same for every refusal so
// that the answer does not tell which part was wrong.
func (s *Server) authenticate(tenant, username, password string) (*user, bool) {
	u, ok := s.users[userKey{tenant, username}]
	if !ok {
		// Compare anyway, so an unknown user takes as long as a wrong
		// password.
		subtle.ConstantTimeCompare([]byte(password), []byte(password))
		return nil, false
	}
	if subtle.ConstantTimeCompare([]byte(password), []byte(u.Password)) != 1 || u.Locked {
		return nil, false
	}
	return u, true
}
