// Package cloudauth is a client for a cloud-automation platform's login
// gateway: logging in for an RS256 JWT bearer token, verifying tokens
// against the server's published key, logging out, reading the user's
// details; and what a command-line client needs around that: token storage
// in the operating system's keyring, named profiles and settings from flags
// and the environment. The program cloudctl (cloudauth/cmd/cloudctl) is
// built on it.
//
//	c, err := cloudauth.New("https://cloud.example.com")
//	if err != nil { … }
//	tok, err := c.Login(ctx, &cloudauth.LoginRequest{Username: "alice", Password: pw, Tenant: "acme"})
//	if errors.Is(err, cloudauth.ErrUnauthorized) { … } // "Authentication failed: 401 Unauthorized"
//	tok, err = c.VerifyToken(ctx, tok.Raw())           // RS256, issuer, exp, against the server's key
//	info, err := c.UserInfo(ctx, tok)
//	err = c.Logout(ctx, tok)
//
// # Errors
//
// The three failures the specification names print its texts exactly and
// match a sentinel with errors.Is:
//
//   - "Authentication failed: 401 Unauthorized" ([ErrUnauthorized]): a
//     wrong username or password, a locked account, a wrong tenant; and a
//     revoked or expired token on later calls.
//   - "Authentication failed: SSL: CERTIFICATE_VERIFY_FAILED"
//     ([ErrCertificateVerifyFailed]): the server's certificate did not
//     verify (unknown authority, wrong host, expired).
//   - "Authentication failed: Connection timeout" ([ErrConnectionTimeout]):
//     no answer came — connection refused, unknown host, dropped
//     connection, or nothing within the timeout ([WithTimeout], 30 s).
//
// Each is an [*Error], whose Detail method and Unwrap give the cause.
// Other answers are "cloudauth: <method> <path>: <status> <message>"
// ([ErrBadRequest], [ErrServer], …). A caller that cancels its context
// gets context.Canceled, not a timeout. Passwords and tokens never appear
// in an error, a log line or a %v.
//
// # Tokens
//
// [Client.Login] returns a [*Token] read from the JWT without verification, for
// display: subject, issuer, tenant, expiry, time left. [Client.VerifyToken]
// verifies one with github.com/golang-jwt/jwt/v5: RS256 only (none, HS256,
// and every other algorithm are refused, which closes the
// algorithm-confusion attack), signed by the key its kid names in the
// server's key set, issued by the server, exp required and not passed, iat
// not in the future, with a leeway of 30 s ([WithLeeway]) on the client's
// clock ([WithClock]). The key set is fetched once and again when a token
// names an unknown key, at most once a minute.
//
// # API tokens and renewal
//
// A script holds a long-lived API token rather than a password:
// [Client.AuthorizeAPIToken] exchanges it (or the refresh token of an
// earlier exchange) for an access token at
// /csp/gateway/am/api/auth/api-tokens/authorize, a form post of
// refresh_token as the gateway takes it; the answer ([Grant]) carries
// access_token, id_token, refresh_token (the API token again),
// expires_in, token_type and scope. A [Session] ([Client.NewSession])
// holds an access token and the token to renew it with, and renews it by
// itself when it has expired or expires within [RenewBefore] (30 s) on
// the client's clock: concurrent callers share one exchange, and each
// renewal is logged at info level ("cloudauth: renewed the access token
// with the refresh token", with the subject, the tenant and the new
// expiry; never a token). An API token the server no longer accepts
// (revoked, expired, its user locked) fails with [ErrBadRequest] and the
// gateway's message "invalid_grant: …"; a session with nothing to renew
// with fails with [ErrNoRefreshToken].
//
// # Token storage
//
// A [TokenStore] keeps one token per profile. [NewStore] is cloudctl's: the
// OS keyring through github.com/zalando/go-keyring ([KeyringStore]: macOS
// Keychain, Windows Credential Manager, Secret Service), each call bounded
// by a timeout so a keyring waiting on an unlock prompt cannot hang the
// program, and tokens larger than a keyring takes refused up front; when
// the keyring fails, a private file ([FileStore], 0600 in a 0700
// directory), and Save returns an [*InsecureStorageError], whose text is
// the specification's warning "Could not store token securely"
// ([ErrInsecureStorage]). A machine without a keyring at all (on Linux and
// the BSDs: no D-Bus session bus) is told apart: the keyring's calls fail
// at once with a [*KeyringUnavailableError] ("no keyring available: …",
// [ErrNoKeyring]) rather than running dbus-launch, and deleting from it
// succeeds, as it holds nothing. [MemoryStore] and [MemoryKeyring] are for
// tests, which must never touch the machine's keyring.
//
// # Profiles and settings
//
// [Config] holds named [Profile]s (URL, tenant, username) and the current
// one, in config.json under [DefaultConfigDir], written atomically and
// readable by its owner only. [UpdateConfig] changes it under a lock
// (flock on Unix, an exclusive open on Windows), so that cloudctl run many
// times at once loses no change, and removes the temporary files of a
// writer that was killed. Fields the file holds that this version does
// not know are kept and written back; a bad value is refused naming the
// file, the field and the problem ("config.json: profiles.prod.url: want
// a string, got a number"). [ResolveSettings] takes each setting from the
// first place that gives it: flag, environment (CLI_URL, CLI_TENANT,
// CLI_USERNAME, CLI_PROFILE, CLI_VERIFY_SSL, CLI_CA_CERT, CLI_TOKEN),
// profile, default.
//
// # Choices where the specification is silent
//
//   - The tenant travels in the login body as "tenant"; an empty one is
//     left out and the server's default applies, whatever the server calls
//     it (the token's tenant claim then names it). Neither the client nor
//     cloudctl fills in a default tenant of its own: a server whose
//     default is another tenant would refuse the login.
//   - The login answer is {"access_token", "token_type":"bearer",
//     "expires_in"} (the gateway's OAuth-style answer); only access_token
//     is required. Logout is POST with the bearer token and answers 204;
//     userinfo answers {"sub","username","name","email","tenant","roles"}.
//     A token the server no longer accepts is 401 on both.
//   - Error answers are {"statusCode","message","requestId"}, the request
//     id also in X-Request-Id; every refused login is the same 401
//     "Unauthorized", so the answer does not tell which part was wrong.
//     A login body must be JSON: another Content-Type is 415 "Content
//     type 'text/plain' not supported", and anything after the JSON
//     object is 400 "The request body is not valid JSON", as the
//     gateway's JSON reader refuses them. The client always sends JSON.
//   - The public key is published in JWKS form ({"keys":[{"kty":"RSA",
//     "alg":"RS256","use":"sig","kid","n","e"}]}); keys shorter than 2048
//     bits are ignored. The expected issuer is the base URL
//     ([WithIssuer] changes it). Tokens carry a jti, which logout revokes.
//   - Token lifetime: 30 minutes on the fake (the gateway's expires_in of
//     1800 s); the client reads whatever exp says.
//   - "Server unreachable" covers every failure without an answer that is
//     not a certificate failure, so a refused connection also reads
//     "Connection timeout"; the cause is kept.
//   - Retries follow the SDK's policy: a login (POST) is sent again only
//     after a 429 or a connection that was never made; userinfo and the
//     key set also after a 5xx or a transport error. Each wait is the
//     longer of the backoff (1 s doubling: 1, 2, 4 s) and the server's
//     Retry-After or reset time.
//   - CLI_VERIFY_SSL accepts "true" or "false" in any case; any other
//     value is an error rather than a guess. --no-verify-ssl wins over it,
//     and a CA file is ignored when verification is off.
//   - Profile names are 1–64 letters, digits, '.', '-', '_'; the
//     configuration file is JSON ({"current_profile", "profiles"}).
//   - Tokens are stored under the profile's name, or "default" when no
//     profile is in use; the keyring service name is "cloudctl". Keyring
//     calls time out after 5 s; tokens over 2,500 bytes skip the keyring.
//
// The fake in fake/cloudauthfake keeps this contract for tests.
package cloudauth
