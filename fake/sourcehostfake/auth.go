package sourcehostfake

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/apitwin/apitwin/internal/fakekit"
)

// sudoScope is the scope a token needs to act as another user.
const sudoScope = "sudo"

// sudoIdentifier is who a request asks to act as: the sudo parameter (in
// the query, a form or a JSON body), else the Sudo header; "" for no one.
// The parameter wins, as the real service reads it first.
func sudoIdentifier(c *call) string {
	if c.p != nil {
		q := *c.p
		q.errs = nil // a sudo that is no string is no sudo; its problem is not the handler's
		if s, ok := q.str("sudo"); ok && s != "" {
			return s
		}
	}
	return c.r.Header.Get("Sudo")
}

// sudo makes the caller the user the request names in its sudo parameter
// or Sudo header, as the real service does for administrators: checked
// after the token, the route's scopes already satisfied by it. An
// anonymous request is 401; a caller who is no administrator 403 "403
// Forbidden - Must be admin to use sudo"; a token without the sudo scope
// 403 insufficient_scope (scope "sudo"); no such user (by id, or by
// username, case-insensitively) 404 "404 User with ID or username 'x'
// Not Found"; a job token 403 (only personal access and OAuth tokens
// sudo). It reports an error answer when it refuses.
func (s *Server) sudo(c *call) (fakekit.Answer, bool) {
	who := sudoIdentifier(c)
	if who == "" {
		return fakekit.Answer{}, false
	}
	switch {
	case c.user == nil:
		return message(http.StatusUnauthorized, "401 Unauthorized"), true
	case !c.user.admin:
		return message(http.StatusForbidden, "403 Forbidden - Must be admin to use sudo"), true
	case c.tok == nil: // a job token
		return message(http.StatusForbidden, "403 Forbidden - Must be authenticated using an OAuth or personal access token to use sudo"), true
	case !slices.Contains(c.tok.scopes, sudoScope):
		return insufficientScope(sudoScope), true
	}
	u := c.st.userByName[strings.ToLower(who)]
	if id, err := strconv.ParseInt(who, 10, 64); err == nil {
		u = c.st.users[id]
	}
	if u == nil {
		return message(http.StatusNotFound, "404 User with ID or username '"+who+"' Not Found"), true
	}
	c.user = u
	return fakekit.Answer{}, false
}

// insufficientScope is the refusal of a token without any of the scopes
// named.
func insufficientScope(scopes ...string) fakekit.Answer {
	return fakekit.Answer{Status: http.StatusForbidden, Body: map[string]any{
		"error":             "insufficient_scope",
		"error_description": "The request requires higher privileges than provided by the access token.",
		"scope":             strings.Join(scopes, " "),
	}}
}

// jobTokenRoutes are the routes a CI/CD job token (JOB-TOKEN, or the
// job_token parameter) is taken on, as the real service lists them
// (ci/jobs/ci_job_token.md): the job's own job (GET /job), the branches,
// commits and tags lists, and the releases API. Elsewhere the real
// service does not look at a job token: the request is anonymous.
var jobTokenRoutes = map[string]bool{
	"GET /api/v4/job": true,
	"GET /api/v4/projects/{id}/repository/branches":    true,
	"GET /api/v4/projects/{id}/repository/commits":     true,
	"GET /api/v4/projects/{id}/repository/tags":        true,
	"GET /api/v4/projects/{id}/releases":               true,
	"POST /api/v4/projects/{id}/releases":              true,
	"GET /api/v4/projects/{id}/releases/{tag_name}":    true,
	"PUT /api/v4/projects/{id}/releases/{tag_name}":    true,
	"DELETE /api/v4/projects/{id}/releases/{tag_name}": true,
}

// presentedJobToken is a job token the request carries: the JOB-TOKEN
// header, else the job_token query parameter.
func presentedJobToken(r *http.Request) string {
	if t := r.Header.Get("Job-Token"); t != "" {
		return t
	}
	return r.URL.Query().Get("job_token")
}

// authenticateJob signs a request in with its job token, on the routes
// that take one: the caller is the user who ran the job's pipeline, with
// that user's access, reaching the job's project alone. A token of no
// job, or of a job that is not running, is 401. It reports whether the
// request carried a job token it answered for (with fail set when it
// refused it).
func (s *Server) authenticateJob(c *call) (fail fakekit.Answer, failed, handled bool) {
	secret := presentedJobToken(c.r)
	if secret == "" || !jobTokenRoutes[c.r.Pattern] {
		return fakekit.Answer{}, false, false
	}
	j := c.st.jobTokens[secret]
	if j == nil || j.status != "running" || j.user == nil {
		return message(http.StatusUnauthorized, "401 Unauthorized"), true, true
	}
	c.user, c.job = j.user, j
	return fakekit.Answer{}, false, true
}

// JobToken returns the CI/CD job token (CI_JOB_TOKEN) of a job, as a
// runner hands it to the job: it signs requests in as the user who ran
// the pipeline, on the routes that take a job token, to the job's project
// alone, while the job is running (401 before and after).
func (s *Server) JobToken(projectID, jobID int64) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	j := s.st.jobByID(projectID, jobID)
	if j == nil {
		return "", fmt.Errorf("sourcehostfake: no job %d in project %d", jobID, projectID)
	}
	for secret, x := range s.st.jobTokens {
		if x == j {
			return secret, nil
		}
	}
	secret := randomSecret(jobTokenPrefix, 15)
	if s.st.jobTokens == nil {
		s.st.jobTokens = map[string]*ciJob{}
	}
	s.st.jobTokens[secret] = j
	return secret, nil
}

// jobByID finds a project's job. s.mu must be held.
func (st *state) jobByID(projectID, jobID int64) *ciJob {
	if p := st.projByID[projectID]; p != nil {
		for _, pl := range p.pipelines {
			for _, j := range pl.jobs {
				if j.id == jobID {
					return j
				}
			}
		}
	}
	return nil
}

// currentJob is GET /job: the job whose token signed the request in.
func (c *call) currentJob() fakekit.Answer {
	if c.job == nil {
		return message(http.StatusUnauthorized, "401 Unauthorized")
	}
	return ok(c.renderJob(c.job))
}
