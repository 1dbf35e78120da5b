package cloudauth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/apitwin/apitwin/internal/rest"
)

// LoginRequest is what Login sends.
type LoginRequest struct {
	Username string `json:"username"`
	Password string `json:"password"`
	// Tenant is the tenant to log in to; empty sends none and leaves the
	// choice to the server, which logs the user in to its default tenant
	// (the token's Tenant then names it).
	Tenant string `json:"tenant,omitempty"`
}

// String describes the request without the password.
func (r LoginRequest) String() string {
	return fmt.Sprintf("LoginRequest{Username: %q, Tenant: %q, Password: [REDACTED]}", r.Username, r.Tenant)
}

// GoString is String.
func (r LoginRequest) GoString() string { return r.String() }

// loginAnswer is the gateway's answer to a login.
type loginAnswer struct {
	AccessToken string `json:"access_token"`
	TokenType   string `json:"token_type"`
	ExpiresIn   int64  `json:"expires_in"`
}

// Login posts the credentials to LoginPath and returns the bearer token the
// server issued, read but not verified (see VerifyToken). A wrong username
// or password, a locked account and a wrong tenant all fail with
// ErrUnauthorized ("Authentication failed: 401 Unauthorized").
//
// Login API: POST /csp/gateway/am/api/login
func (c *Client) Login(ctx context.Context, req *LoginRequest) (*Token, error) {
	if req == nil || strings.TrimSpace(req.Username) == "" {
		return nil, errors.New("cloudauth: login needs a username")
	}
	if req.Password == "" {
		return nil, errors.New("cloudauth: login needs a password")
	}
	var ans loginAnswer
	err := c.do(ctx, &rest.Request{Method: http.MethodPost, Path: LoginPath, JSON: req, Secrets: []string{req.Password}}, &ans)
	if err != nil {
		return nil, err
	}
	// The token is a credential from now on: an error about a later call
	// that quotes it, or this one's, does not show it.
	c.rest.Secrets().Add(ans.AccessToken)
	if ans.AccessToken == "" {
		return nil, fmt.Errorf("cloudauth: POST %s: the answer carries no access_token", LoginPath)
	}
	tok, err := ParseToken(ans.AccessToken)
	if err != nil {
		return nil, c.rest.Scrub(fmt.Errorf("cloudauth: POST %s: the access_token: %w", LoginPath, err))
	}
	return tok, nil
}

// Logout asks the server to invalidate the token. A token the server no
// longer accepts (expired, or already logged out) fails with
// ErrUnauthorized; either way it is of no more use.
//
// Login API: POST /csp/gateway/am/api/logout
func (c *Client) Logout(ctx context.Context, tok *Token) error {
	h, err := bearer(tok)
	if err != nil {
		return err
	}
	return c.do(ctx, &rest.Request{Method: http.MethodPost, Path: LogoutPath, Header: h, Secrets: []string{tok.raw}}, nil)
}

// UserInfo is what the server knows of the token's user.
type UserInfo struct {
	// Subject is the user's id, the token's sub.
	Subject  string   `json:"sub"`
	Username string   `json:"username"`
	Name     string   `json:"name,omitempty"`
	Email    string   `json:"email,omitempty"`
	Tenant   string   `json:"tenant"`
	Roles    []string `json:"roles,omitempty"`
}

// UserInfo returns the token's user from UserInfoPath. A token the server
// no longer accepts fails with ErrUnauthorized.
//
// Login API: GET /csp/gateway/am/api/userinfo
func (c *Client) UserInfo(ctx context.Context, tok *Token) (*UserInfo, error) {
	h, err := bearer(tok)
	if err != nil {
		return nil, err
	}
	var u UserInfo
	if err := c.do(ctx, &rest.Request{Method: http.MethodGet, Path: UserInfoPath, Header: h, Secrets: []string{tok.raw}}, &u); err != nil {
		return nil, err
	}
	return &u, nil
}
