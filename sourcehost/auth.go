package sourcehost

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/apitwin/apitwin/internal/rest"
)

// WithSudo makes every request act as another user, named by username
// or numeric id, sent in the Sudo header: the server runs each call with
// that user's permissions. The token must be an administrator's, with the
// sudo scope (ScopeSudo): another user's is refused with 403 "403
// Forbidden - Must be admin to use sudo", a token without the scope with
// 403 insufficient_scope, and a user who does not exist with 404.
// Client.Sudo makes such a client from an existing one.
func WithSudo(user string) Option {
	return func(s *settings) error {
		if err := checkSudo(user); err != nil {
			return err
		}
		s.sudo = user
		return nil
	}
}

// Sudo returns a copy of c whose requests act as user (a username or a
// numeric id), as WithSudo makes them; "" acts as the token's own user
// again. The copy shares c's token, settings and rate limit.
func (c *Client) Sudo(user string) (*Client, error) {
	if user != "" {
		if err := checkSudo(user); err != nil {
			return nil, fmt.Errorf("sourcehost: %w", err)
		}
	}
	cp := *c
	cp.sudo = user
	return &cp, nil
}

// SudoUser is a user id for Sudo and WithSudo.
func SudoUser(id int64) string { return strconv.FormatInt(id, 10) }

// checkSudo refuses a user no header can carry.
func checkSudo(user string) error {
	switch {
	case strings.TrimSpace(user) == "":
		return errors.New("sudo: empty user")
	case len(user) > 255:
		return errors.New("sudo: a username is at most 255 characters")
	case strings.ContainsFunc(user, func(r rune) bool { return r < ' ' || r == 0x7f }):
		return errors.New("sudo: the user contains a control character")
	}
	return nil
}

// send sends one request of c's, the only way its requests go out, so
// that each carries the Sudo header of a client acting as another user
// (WithSudo, Client.Sudo): the rest client, shared by Client.Sudo's
// copies, cannot hold it.
func (c *Client) send(ctx context.Context, req *rest.Request, out any) (rest.Response, error) {
	if c.sudo != "" {
		h := req.Header.Clone()
		if h == nil {
			h = http.Header{}
		}
		h.Set("Sudo", c.sudo)
		req.Header = h
	}
	return c.rest.Do(ctx, req, out)
}

// WithJobToken authenticates every request with a CI/CD job token (a
// running job's CI_JOB_TOKEN), sent in the JOB-TOKEN header. The server
// takes one on the few endpoints GitLab opens to jobs (CurrentJob, the
// branches, commits and tags lists, releases, …), as the user who ran the
// pipeline, for the job's project; elsewhere the request is anonymous.
// It replaces WithToken and WithOAuthToken.
func WithJobToken(token string) Option {
	return func(s *settings) error {
		if err := checkToken(token); err != nil {
			return err
		}
		s.token, s.auth = token, func(token string) func(http.Header) {
			return func(h http.Header) { h["Job-Token"] = []string{token} }
		}
		return nil
	}
}

// WithOAuthToken authenticates every request with an OAuth access token,
// sent as "Authorization: Bearer <token>", which the server holds to the
// same scopes as a personal access token. It replaces WithToken and
// WithJobToken.
func WithOAuthToken(token string) Option {
	return func(s *settings) error {
		if err := checkToken(token); err != nil {
			return err
		}
		s.token, s.auth = token, bearerAuth
		return nil
	}
}

// bearerAuth sends token as an OAuth access token: "Authorization: Bearer
// <token>".
func bearerAuth(token string) func(http.Header) {
	return func(h http.Header) { h["Authorization"] = []string{"Bearer " + token} }
}

// CurrentJob returns the job whose token the client authenticates with
// (WithJobToken); another token is refused with 401.
//
// GitLab API: [GET /job]
//
// [GET /job]: https://docs.gitlab.com/api/jobs/#get-job-tokens-job
func (c *Client) CurrentJob(ctx context.Context) (*Job, error) {
	return do[Job](ctx, c, http.MethodGet, "/job", nil, nil)
}
