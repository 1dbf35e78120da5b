// Package cloudauthfake is a stateful, in-process twin of the
// cloud-automation platform's login gateway, for testing code that uses
// package cloudauth, the cloudctl command line, or any client of the
// gateway, without a real server.
//
//	srv := cloudauthfake.Start(t)             // plain HTTP on loopback, closed when the test ends
//	srv.AddUser(cloudauthfake.UserSeed{Username: "alice", Password: "pw", Tenant: "acme"})
//	c := srv.Client()                         // a cloudauth client on the fake's clock
//	tok, _ := c.Login(ctx, &cloudauth.LoginRequest{Username: "alice", Password: "pw", Tenant: "acme"})
//	srv.Clock().Advance(31 * time.Minute)     // the token has expired: userinfo answers 401
//
// What it keeps: users with passwords, tenants, names, e-mail addresses,
// roles and a locked flag (one user to start with: admin / changeme in the
// default tenant); the RSA key it signs with and its key id (the key's
// RFC 7638 thumbprint by default); the tokens it revoked.
//
// The key: a fake given none ([WithKey]) signs with the process's key, a
// 2048-bit RSA key made the first time a fake of the process needs it and
// shared by every such fake, so that starting a fake costs about what a
// bare httptest server does (making a key takes tens of milliseconds). It
// is never fixed nor written anywhere: a token a fake of another process
// signed does not verify here. [Server.RotateKey] rotates one fake's key
// (to a fresh key unless given one); the key document then lists the new
// key and the one before it, whose tokens verify until they expire.
//
// What it does as the gateway does:
//
//   - POST /csp/gateway/am/api/login with {"username","password","tenant"}
//     issues an RS256 JWT (header alg RS256, typ JWT, kid; payload sub,
//     iss, exp, iat, tenant, jti) and answers {"access_token",
//     "token_type":"bearer","expires_in"}. An empty tenant means the
//     default tenant, "default" ([DefaultTenant], [WithDefaultTenant]). A
//     wrong password, an unknown user, a locked account and a wrong tenant
//     all answer the same 401 {"statusCode":401,"message":"Unauthorized",
//     "requestId":…}; a body that is not JSON, answers 400 "The request
//     body is not valid JSON" (so does one with anything but white space
//     after the JSON object); a JSON object that lacks username or
//     password, answers 400 "username and password are required"; a
//     Content-Type other than application/json or a +json type
//     (text/plain, a form) answers 415 "Content type 'text/plain' not
//     supported", as the gateway's JSON reader does. A body without a
//     Content-Type is read as JSON.
//   - POST /csp/gateway/am/api/logout with a bearer token revokes it
//     (204); GET /csp/gateway/am/api/userinfo answers the user's details.
//     Both answer 401 with WWW-Authenticate: Bearer error="invalid_token"
//     for a missing, forged, expired or revoked token.
//   - POST /csp/gateway/am/api/auth/api-tokens/authorize exchanges an API
//     token ([Server.IssueAPIToken], or the control API's) for an access
//     token: the token comes in the form field refresh_token
//     (application/x-www-form-urlencoded) or the query parameter of that
//     name, as the gateway reads both; a JSON body is not read. It answers
//     {"id_token","token_type":"bearer","expires_in","scope",
//     "access_token","refresh_token"}: an access token as a login's, an id
//     token (no jti, so no bearer token), the API token back as the
//     refresh token, scope "openid offline_access". A missing token
//     answers 400 "invalid_request: refresh_token is required"; an
//     unknown, revoked or expired one, or one whose user is locked, 400
//     "invalid_grant: Invalid refresh token" (never quoting the token).
//     Access tokens got before a revocation stay valid until they expire,
//     as the gateway's do.
//   - GET /csp/gateway/am/api/auth/token-public-key publishes the public key
//     as a JWKS document (after a rotation, the current key and the one
//     before it).
//   - Other paths answer 404, other methods 405, in the same error shape.
//
// Tokens are issued and expire on the fake's clock ([Server.Clock]), 30
// minutes after issue by default ([WithTokenLifetime]); the issuer is the
// URL the fake serves on ([WithIssuer] fixes another).
//
// [Start] with [control.WithTLS] serves over TLS with a certificate of its own authority, so
// that certificate verification, a custom CA ([Server.CACertFile]) and
// turning verification off can be tested; [Server.Client] trusts it.
//
// # Serving and controls
//
// Like every apitwin fake: [New] builds one that serves nothing yet (it is
// an http.Handler); [Start] serves it on loopback until the
// test ends (over TLS with [control.WithTLS]); [Server.Serve] and [Server.Listen] serve it for programs until
// [Server.Close]. Every listener has header and idle timeouts, and Close
// gives running requests two seconds before it closes their connections.
// The controls are the same on every fake ([control.Controls]):
// [Server.InjectFault] per route (RouteLogin, RouteLogout, RouteUserInfo,
// RoutePublicKey, RouteAPIToken, or "" for all: a status, a body, latency on the wall or
// the fake clock, a dropped connection, for the next N requests),
// [Server.Faults], [Server.ClearFaults], the request log
// ([Server.Requests], [Server.RequestsTo], [Server.ResetRequests]; each
// entry names the caller), [Server.Reset], and [Server.Clock]. Seeding and
// reading back: [Server.Load] with a [Seed], AddUser, SetLocked,
// SetPassword, LookupUser, IssueToken, SignToken, RevokeToken, Revoked, Issued,
// RotateKey, IssueAPIToken, RevokeAPIToken, APITokens.
//
// # Bounds
//
//   - Request bodies: at most 64 KiB ([control.WithMaxBody]); a larger one is
//     refused with 413 in the gateway's error shape before it is read.
//   - The request log: the newest 10,000 requests, the first 64 KiB of
//     each body and 16 KiB of each header, 32 MiB in all
//     ([control.WithRequestLog]). It keeps no secret: a login's password and the
//     access_token it answers are "[REDACTED]" in it (see [SecretFields]),
//     a token sent "Bearer [REDACTED]". Who a request was authenticated as
//     is its Caller.
//   - Accounts: at most 100,000 ([control.WithMaxRecords], [DefaultMaxRecords]);
//     AddUser (and a seed) refuses one more. About 190 bytes an account.
//   - The revocation list: the tokens logged out and not yet expired, at
//     most 100,000 ([control.WithMaxRecords]); the expired are dropped once it
//     holds 10,000, and again each time it has doubled. A logout past the
//     bound answers 503 {"statusCode":503,"message":"Too many tokens
//     revoked; try again later",…} and the token stays valid, until a
//     revoked token expires and makes room (the gateway's behaviour here
//     is not known; a refusal the client sees beats a token silently
//     valid again). About 100 bytes a revoked token.
//   - API tokens: at most 100,000 neither revoked nor expired
//     ([control.WithMaxRecords]); IssueAPIToken drops the expired when it
//     reaches the bound and refuses one more. The fake keeps each token's
//     SHA-256, never the token (nor does a snapshot). About 150 bytes a
//     token.
//   - Listeners: 10 s to send the headers, 64 KiB of headers in at most
//     100 fields, 30 s to send the body, 2 minutes to read the answer, 2
//     minutes idle; a request with both Content-Length and
//     Transfer-Encoding, or more fields, is refused with 400 and its
//     connection closed. Each listener holds at most a tenth of the
//     process's limit on open files in connections, between 64 and 4,096
//     (2,000 at `ulimit -n` 20,000); one more is closed at once.
//
// A handler that panics is answered 500 in the gateway's error shape and
// the panic is in the request log (Request.Panic): it is a bug of the
// fake's, please report it.
//
// Known differences from the real service: a login answers no refresh or
// id token (only the API-token exchange does); API tokens have no name,
// scopes or organisation and are made by the Go helper or the control API,
// not a console page; the scope answered is fixed; the messages of a
// refused exchange are the OAuth error word and a short text of the
// fake's own (the gateway's exact wording is not documented); no rate
// limiting unless injected; and the revocation list lives in memory.
package cloudauthfake
