package erpfake

import "slices"

// secretFields are the fields in which requests to the ERP carry secrets:
// a user's password as the API takes it (pass) and as the login form and
// the ERP's GET /login take it (password), and the key and stored-password
// properties a user's body may name (refused with 405, but received).
var secretFields = []string{"pass", "password", "api_key", "pass_crypted", "pass_indatabase", "pass_indatabase_crypted", "pass_temp", "token"}

// secretAnswerFields are the fields in which the ERP answers secrets: the
// token of its GET /login. Its records never hold a password or a key.
var secretAnswerFields = []string{"token"}

// SecretFields names the fields in which the ERP carries secrets: pass,
// password, api_key and the stored-password properties (pass_crypted,
// pass_indatabase, pass_indatabase_crypted, pass_temp) in requests, and
// token in requests and answers. The request log keeps "[REDACTED]" in
// place of their values, in JSON and form bodies and queries, as it does
// for credential headers (ERPAPIKEY, Authorization: "Bearer [REDACTED]",
// Cookie: "<name>=[REDACTED]") and query parameters (ERPAPIKEY, api_key).
func SecretFields() []string { return slices.Clone(secretFields) }

// RequestCount is how many requests the log holds, without copying it.
func (s *Server) RequestCount() int { return s.kit.RequestCount() }
