package cloudauthfake

import "slices"

// secretFields are the fields in which requests to the login gateway carry
// secrets: the password a login sends, and the tokens the gateway's token
// endpoints take back.
var secretFields = []string{"password", "access_token", "refresh_token", "id_token"}

// secretAnswerFields are the fields in which the gateway answers secrets:
// the tokens of a login (the fake answers only access_token; the real
// gateway's refresh and id tokens are named too).
var secretAnswerFields = []string{"access_token", "refresh_token", "id_token"}

// SecretFields names the fields in which the gateway carries secrets:
// password in requests, access_token, refresh_token and id_token in
// requests and answers. The request log keeps "[REDACTED]" in place of
// their values, as it does for credential headers (Authorization:
// "Bearer [REDACTED]").
func SecretFields() []string { return slices.Clone(secretFields) }

// RequestCount is how many requests the log holds, without copying it.
func (s *Server) RequestCount() int { return s.kit.RequestCount() }
