package sourcehostfake

import "slices"

// secretFields are the parameters in which requests to the API carry
// secrets: a webhook's secret token (POST /projects/:id/hooks), the
// credentials GitLab also reads from a body or a query (private_token,
// job_token, access_token), a user's password, and a CI/CD variable's
// value (of a project's variables and of a pipeline's, and a pipeline's
// variables whole, variables[KEY]=value too: the real service keeps
// variables out of its logs, masked or not).
var secretFields = []string{"token", "private_token", "job_token", "access_token", "password", "value", "variables",
	"code", "code_verifier", "refresh_token", "client_secret", "authenticity_token"}

// secretAnswerFields are the fields in which the API answers secrets: the
// token of a personal access token just created or of a pipeline trigger,
// and a CI/CD variable's value. A hook's token is never answered, as
// GitLab never answers it.
var secretAnswerFields = []string{"token", "value", "access_token", "refresh_token", "client_secret"}

// SecretFields names the parameters in which the API carries secrets:
// token and value (a CI/CD variable's, in requests and answers),
// private_token, job_token, access_token, password and variables (a
// pipeline's, whole; in requests), and what OAuth carries (code,
// code_verifier, refresh_token, client_secret, authenticity_token; in
// answers access_token, refresh_token, client_secret). The request log
// keeps "[REDACTED]" in place of their values, in JSON, form and
// multipart bodies and queries, as it does for credential headers
// (PRIVATE-TOKEN, JOB-TOKEN, Authorization: "Bearer [REDACTED]").
func SecretFields() []string { return slices.Clone(secretFields) }

// RequestCount is how many requests the log holds, without copying it.
func (s *Server) RequestCount() int { return s.kit.RequestCount() }
