// Package cloudauthfake is a stateful, in-process twin of the
// cloud-automation platform's login gateway, for testing code that uses
// package cloudauth, the cloudctl command line, or any client of the
// gateway, without a real server.
//
//	srv := cloudauthfake.Start(t)             // plain HTTP on loopback, closed when the test ends
//	srv.AddUser(cloudauthfake.User{Username: "alice", Password: "pw", Tenant: "acme"})
//	c := srv.Client()                         // a cloudauth client on the fake's clock
//	tok, _ := c.Login(ctx, &cloudauth.LoginRequest{Username: "alice", Password: "pw", Tenant: "acme"})
//	srv.Clock().Advance(31 * time.Minute)     // the token has expired: userinfo answers 401
//
// What it keeps: users with passwords, tenants, names, e-mail addresses,
// roles and a locked flag (one user to start with: admin / changeme in the
// default tenant); an RSA key pair, made when the fake is built unless
// [WithKey] gives one, and its key id (the key's RFC 7638 thumbprint by
// default); the tokens it revoked.
//
// What it does as the gateway does:
//
//   - POST /csp/gateway/am/api/login with {"username","password","tenant"}
//     issues an RS256 JWT (header alg RS256, typ JWT, kid; payload sub,
//     iss, exp, iat, tenant, jti) and answers {"access_token",
//     "token_type":"bearer","expires_in"}. An empty tenant means the
//     default tenant, "vsphere.local" ([WithDefaultTenant]). A wrong
//     password, an unknown user, a locked account and a wrong tenant all
//     answer the same 401 {"statusCode":401,"message":"Unauthorized",
//     "requestId":…}; a body that is not JSON, or lacks username or
//     password, answers 400.
//   - POST /csp/gateway/am/api/logout with a bearer token revokes it
//     (204); GET /csp/gateway/am/api/userinfo answers the user's details.
//     Both answer 401 with WWW-Authenticate: Bearer error="invalid_token"
//     for a missing, forged, expired or revoked token.
//   - GET /csp/gateway/am/api/auth/token-public-key publishes the public key
//     as a JWKS document.
//   - Other paths answer 404, other methods 405, in the same error shape.
//
// Tokens are issued and expire on the fake's clock ([Server.Clock]), 30
// minutes after issue by default ([WithTokenLifetime]); the issuer is the
// URL the fake serves on ([WithIssuer] fixes another).
//
// [StartTLS] serves over TLS with a certificate of its own authority, so
// that certificate verification, a custom CA ([Server.CACertFile]) and
// turning verification off can be tested; [Server.Client] trusts it.
//
// Controls: [Server.InjectFault] per route (RouteLogin, RouteLogout,
// RouteUserInfo, RoutePublicKey; a status, a body, latency, a dropped
// connection, for the next N requests); [Server.Requests] and
// [Server.RequestsTo], the request log; seeding and reading back (AddUser,
// SetLocked, SetPassword, LookupUser, IssueToken, Sign, Revoke, Revoked,
// Issued).
//
// Known differences from the real service: no refresh or id tokens, no
// scopes or organisations, no rate limiting unless injected, and the
// revocation list lives in memory.
package cloudauthfake
