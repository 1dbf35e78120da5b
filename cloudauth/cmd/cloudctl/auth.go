package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/apitwin/apitwin/cloudauth"
	"github.com/apitwin/apitwin/internal/rest"
)

func (a *app) authCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "auth",
		Short: "Log in, check the login, print the token, log out",
		Args:  subcommandOnly,
		RunE:  func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(a.loginCommand(), a.statusCommand(), a.whoamiCommand(), a.tokenCommand(), a.logoutCommand(),
		a.refreshCommand(), a.switchCommand())
	return cmd
}

// maxPasswordSize bounds what --password-stdin reads.
const maxPasswordSize = 64 << 10

func (a *app) loginCommand() *cobra.Command {
	var (
		o                        cloudauth.Overrides
		passwordStdin, withToken bool
	)
	cmd := &cobra.Command{
		Use:   "login",
		Short: "Log in and store the token",
		Long: `Log in to the server and store the token in the keyring, under the profile
in use ("default" when none, which is then created and made current). The
profile remembers the server, tenant and username of its last login, so
later commands speak of the same server.

Whatever the flags, the environment and the profile do not give is asked
for: username, password, server URL, tenant. The password is read without
echo on a terminal; without a terminal it is the next line of standard
input. In scripts, --password-stdin reads the password from all of
standard input and asks for nothing (username and server URL must then be
given; without a tenant the server's default applies):

  printf '%s' "$PASSWORD" | cloudctl auth login --url https://cloud.example.com --username alice --password-stdin

With --with-token, standard input holds a token instead: an API token made
in the server's console, which is exchanged for an access token and kept to
renew it by itself when it expires (see auth refresh), or an access token,
kept as it is until it expires. The username and tenant are the token's:

  cloudctl auth login --url https://cloud.example.com --with-token < api-token.txt`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			a.flags.URL, a.flags.Tenant, a.flags.Username = o.URL, o.Tenant, o.Username
			if passwordStdin && withToken {
				return &usageError{errors.New("--password-stdin and --with-token cannot be used together")}
			}
			if withToken {
				return a.loginWithToken(cmd)
			}
			return a.login(cmd, passwordStdin)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&o.Username, "username", "u", "", "username (default: $CLI_USERNAME, else the profile's, else asked)")
	f.StringVar(&o.URL, "url", "", "server URL (default: $CLI_URL, else the profile's, else asked)")
	f.StringVar(&o.Tenant, "tenant", "", "tenant (default: $CLI_TENANT, else the profile's, else asked; empty: the server's default)")
	f.BoolVar(&passwordStdin, "password-stdin", false, "read the password from standard input and ask for nothing")
	f.BoolVar(&withToken, "with-token", false, "read an API token (or an access token) from standard input instead of logging in with a password")
	return cmd
}

func (a *app) login(cmd *cobra.Command, passwordStdin bool) error {
	cfg, s, err := a.settings()
	if err != nil {
		return err
	}
	// A CA file that cannot be used is said before anything is asked.
	if s.VerifySSL && s.CACert != "" {
		if _, err := rest.LoadCAFile(s.CACert); err != nil {
			return err
		}
	}
	var password string
	if passwordStdin {
		switch {
		case s.Username == "":
			return &usageError{errors.New("--password-stdin needs a username: give --username, set " + cloudauth.EnvUsername + ", or use a profile that has one")}
		case s.URL == "":
			return &usageError{errors.New("--password-stdin needs a server URL: give --url, set " + cloudauth.EnvURL + ", or use a profile")}
		}
		if password, err = a.readPasswordStdin(); err != nil {
			return err
		}
	} else {
		if s.Username == "" {
			if s.Username, err = a.prompt(cmd.Context(), "Username", ""); err != nil {
				return err
			}
		}
		if password, err = a.promptPassword(cmd.Context()); err != nil {
			return err
		}
		if s.URL == "" {
			u, err := a.prompt(cmd.Context(), "Server URL", "")
			if err != nil {
				return err
			}
			if err := cloudauth.CheckURL(u); err != nil {
				return err
			}
			s.URL = strings.TrimRight(u, "/")
		}
		// The tenant is asked only of a login to a server no profile
		// describes: a profile's empty tenant is the server's default,
		// chosen when the profile was made.
		if _, given := s.Sources["tenant"]; !given && !strings.HasPrefix(s.Sources["url"], "profile ") {
			if s.Tenant, err = a.promptOptional(cmd.Context(), "Tenant (empty: the server's default)"); err != nil {
				return err
			}
		}
	}
	c, err := a.client(s)
	if err != nil {
		return err
	}
	tok, err := c.Login(cmd.Context(), &cloudauth.LoginRequest{Username: s.Username, Password: password, Tenant: s.Tenant})
	if err != nil {
		return err
	}
	return a.finishLogin(cmd.Context(), cfg, s, tok, "")
}

// loginWithToken is auth login --with-token: an API token from standard
// input exchanged for an access token (both stored), or an access token
// stored as it is.
func (a *app) loginWithToken(cmd *cobra.Command) error {
	cfg, s, err := a.settings()
	if err != nil {
		return err
	}
	if s.URL == "" {
		return &usageError{errors.New("--with-token needs a server URL: give --url, set " + cloudauth.EnvURL + ", or use a profile")}
	}
	given, err := a.readStdin("--with-token", "token")
	if err != nil {
		return err
	}
	given = strings.TrimSpace(given)
	var tok *cloudauth.Token
	refresh := ""
	if strings.Count(given, ".") == 2 {
		// An access token (a JWT): kept as it is, after the server has
		// said it takes it.
		if tok, err = cloudauth.ParseToken(given); err != nil {
			return fmt.Errorf("--with-token: %w", err)
		}
		c, err := a.client(s)
		if err != nil {
			return err
		}
		if _, err := c.UserInfo(cmd.Context(), tok); err != nil {
			return err
		}
	} else {
		c, err := a.client(s)
		if err != nil {
			return err
		}
		g, err := c.AuthorizeAPIToken(cmd.Context(), given)
		if err != nil {
			return err
		}
		tok, refresh = g.AccessToken, g.RefreshToken()
	}
	s.Username = tok.Subject
	return a.finishLogin(cmd.Context(), cfg, s, tok, refresh)
}

// finishLogin stores the token of a login and remembers the profile.
func (a *app) finishLogin(ctx context.Context, cfg *cloudauth.Config, s *cloudauth.Settings, tok *cloudauth.Token, refresh string) error {
	// Interrupted as the answer came: nothing is stored, as when
	// interrupted before.
	if err := ctx.Err(); err != nil {
		return err
	}
	key := s.TokenKey()
	old, hadOld := cfg.Profile(key)
	accounts := a.accountsAfterLogin(key, old, hadOld, s.URL, s.Username)
	if err := a.saveCredential(key, credential{AccessToken: tok.Raw(), RefreshToken: refresh}); err != nil {
		return fmt.Errorf("logged in, but the token could not be stored: %w", err)
	}
	// The profile in use remembers where its token is from, so that status
	// and logout speak of the same server.
	p := cloudauth.Profile{Name: key, URL: s.URL, Tenant: s.Tenant, Username: s.Username, Accounts: accounts}
	if !hadOld || !old.Equal(p) || cfg.Current == "" && s.Profile == "" {
		_, err := cloudauth.UpdateConfig(a.dir, func(cfg *cloudauth.Config) error {
			if err := cfg.Add(p); err != nil {
				return err
			}
			if cfg.Current == "" || s.Profile == "" {
				cfg.Current = key
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("logged in, but the profile could not be saved: %w", err)
		}
		a.debugf("profile %s: %s", key, describeProfile(p))
	}
	tenant := tok.Tenant
	if tenant == "" {
		tenant = s.Tenant
	}
	a.printf("Logged in to %s as %s (tenant %s)", s.URL, s.Username, tenant)
	if a.verbose && !tok.ExpiresAt.IsZero() {
		a.printf("Token expires at %s", describeExpiry(tok, a.env.Clock.Now()))
	}
	return nil
}

// keyringReason says why the keyring did not keep a token: "no keyring
// available: …" when there is none, else the keyring's error.
func keyringReason(err error) string {
	var ku *cloudauth.KeyringUnavailableError
	if errors.As(err, &ku) {
		return ku.Error()
	}
	return err.Error()
}

// readPasswordStdin reads the password from all of standard input, less
// one line ending.
func (a *app) readPasswordStdin() (string, error) { return a.readStdin("--password-stdin", "password") }

// readStdin reads a secret from all of standard input (at most
// maxPasswordSize bytes), less one line ending; flag and what name it in
// errors.
func (a *app) readStdin(flag, what string) (string, error) {
	b, err := io.ReadAll(io.LimitReader(a.in, maxPasswordSize+1))
	if err != nil {
		return "", fmt.Errorf("reading the %s from standard input: %w", what, err)
	}
	if len(b) > maxPasswordSize {
		return "", fmt.Errorf("%s: standard input holds more than %d bytes", flag, maxPasswordSize)
	}
	v := strings.TrimSuffix(strings.TrimSuffix(string(b), "\n"), "\r")
	if v == "" {
		return "", errors.New(flag + ": standard input is empty")
	}
	return v, nil
}

func (a *app) statusCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "status",
		Short: "Say whether you are logged in (exit status 0 if so, 4 if not)",
		Long: `Say whether you are logged in: whether the token stored for the profile in
use (or given in CLI_TOKEN) is one the server stands behind. The token's
signature is checked against the keys the server publishes, and the server
is asked whether it still accepts the token; a token that cannot be checked
(no server URL, server unreachable) is said to be so.

The server the token names as its issuer is where you are logged in; when
the server URL in use differs, both are shown. --verbose adds the expiry
and where the settings came from; --output json gives it all as JSON.

Exit status: 0 when logged in, 4 when not, 1 when it could not be checked.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return a.status(cmd.Context()) },
	}
}

// statusReport is what status found, and its JSON form.
type statusReport struct {
	LoggedIn    bool   `json:"logged_in"`
	Profile     string `json:"profile"`
	ServerURL   string `json:"server_url,omitempty"`
	Issuer      string `json:"issuer,omitempty"`
	Subject     string `json:"subject,omitempty"`
	Tenant      string `json:"tenant,omitempty"`
	ExpiresAt   string `json:"expires_at,omitempty"`
	TokenSource string `json:"token_source,omitempty"`
	// OtherAccounts are the profile's accounts besides the active one
	// (auth switch).
	OtherAccounts []string `json:"other_accounts,omitempty"`
	// Reason says why the user is not logged in.
	Reason string `json:"reason,omitempty"`
}

func (a *app) status(ctx context.Context) error {
	cfg, s, err := a.settings()
	if err != nil {
		return err
	}
	rep := &statusReport{Profile: s.TokenKey(), ServerURL: s.URL}
	if p, ok := cfg.Profile(s.TokenKey()); ok {
		rep.OtherAccounts = p.Accounts
	}
	tok, source, err := a.checkedToken(ctx, s, rep)
	if err != nil {
		return err
	}
	if tok == nil {
		if a.json() {
			if err := a.printJSON(rep); err != nil {
				return err
			}
		} else {
			a.printf("Not logged in: %s", rep.Reason)
		}
		return notAuthenticated
	}
	rep.LoggedIn = true
	if a.json() {
		return a.printJSON(rep)
	}
	where := tok.Issuer
	if where == "" {
		where = s.URL
	}
	line := fmt.Sprintf("Logged in to %s as %s (tenant %s)", where, tok.Subject, tok.Tenant)
	if tok.Issuer != "" && strings.TrimRight(tok.Issuer, "/") != s.URL {
		line += "; the server URL in use is " + s.URL
	}
	a.printf("%s", line)
	if len(rep.OtherAccounts) > 0 {
		a.printf("Also logged in as %s (cloudctl auth switch)", strings.Join(rep.OtherAccounts, ", "))
	}
	if a.verbose {
		a.printf("Profile: %s", s.TokenKey())
		a.printf("Token from: %s", source)
		a.printf("Token expires at %s", describeExpiry(tok, a.env.Clock.Now()))
	}
	return nil
}

// checkedToken finds the token in use and checks it: a JWT, not expired,
// signed by a key the server at the URL in use publishes, and still
// accepted by that server. It returns the token verified, or nil with
// rep.Reason saying why the user is not logged in; an error when the token
// could not be checked. rep gets what was learnt on the way.
func (a *app) checkedToken(ctx context.Context, s *cloudauth.Settings, rep *statusReport) (*cloudauth.Token, string, error) {
	raw, source, err := a.token(ctx, s)
	rep.TokenSource = source
	if errors.Is(err, cloudauth.ErrNoToken) {
		a.debugf("%v", err)
		rep.TokenSource = ""
		rep.Reason = fmt.Sprintf("no token for profile %s. Log in with: cloudctl auth login", s.TokenKey())
		return nil, "", nil
	}
	if err != nil {
		return nil, "", err
	}
	tok, err := cloudauth.ParseToken(raw)
	if err != nil {
		a.debugf("%v", err)
		rep.Reason = fmt.Sprintf("the token from %s is not a token the server issued (%v)", source, err)
		return nil, source, nil
	}
	rep.Issuer, rep.Subject, rep.Tenant = tok.Issuer, tok.Subject, tok.Tenant
	if !tok.ExpiresAt.IsZero() {
		rep.ExpiresAt = tok.ExpiresAt.UTC().Format(time.RFC3339)
	}
	now := a.env.Clock.Now()
	if tok.Expired(now) {
		rep.Reason = fmt.Sprintf("the token from %s expired at %s", source, tok.ExpiresAt.UTC().Format(time.RFC3339))
		return nil, source, nil
	}
	if s.URL == "" {
		return nil, source, &checkError{"Could not check the token from " + source,
			fmt.Errorf("no server URL (set %s or use a profile)", cloudauth.EnvURL)}
	}
	c, err := a.client(s)
	if err != nil {
		return nil, source, err
	}
	couldNot := func(err error) error {
		return &checkError{fmt.Sprintf("Could not check the token from %s with %s", source, s.URL), err}
	}
	// The signature, against the keys of the server in use (the token's
	// own issuer is not trusted to say where its keys are).
	keys, err := c.PublicKeys(ctx)
	if err != nil {
		return nil, source, couldNot(err)
	}
	verified, err := keys.Verify(raw, cloudauth.VerifyOptions{Now: now, Leeway: cloudauth.DefaultLeeway})
	if err != nil {
		a.debugf("%v", err)
		rep.Reason = fmt.Sprintf("the token from %s does not verify against %s's keys (%v)", source, s.URL, err)
		if errors.Is(err, cloudauth.ErrTokenExpired) {
			rep.Reason = fmt.Sprintf("the token from %s has expired", source)
		}
		return nil, source, nil
	}
	// The server's word: a token logged out elsewhere verifies still.
	if _, err := c.UserInfo(ctx, verified); err != nil {
		if errors.Is(err, cloudauth.ErrUnauthorized) {
			rep.Reason = fmt.Sprintf("%s no longer accepts the token from %s (logged out, or revoked)", s.URL, source)
			return nil, source, nil
		}
		return nil, source, couldNot(err)
	}
	return verified, source, nil
}

// checkError is a token that could not be checked: what was tried and why
// it failed. With --verbose, the cause of a *cloudauth.Error shows too.
type checkError struct {
	what string
	err  error
}

func (e *checkError) Error() string { return e.what + ": " + e.err.Error() }
func (e *checkError) Unwrap() error { return e.err }

// token returns the access token in use: CLI_TOKEN, else the stored one,
// renewed first when it has expired and a refresh token is stored.
func (a *app) token(ctx context.Context, s *cloudauth.Settings) (raw, source string, err error) {
	if s.Token != "" {
		return s.Token, cloudauth.EnvToken, nil
	}
	c, err := a.loadCredential(s.TokenKey())
	if err != nil {
		return "", "the token store", err
	}
	return a.renewIfDue(ctx, s, s.TokenKey(), c).AccessToken, "the token store", nil
}

func describeExpiry(tok *cloudauth.Token, now time.Time) string {
	if tok.ExpiresAt.IsZero() {
		return "never (the token carries no expiry)"
	}
	left := tok.TimeLeft(now).Round(time.Second)
	return fmt.Sprintf("%s (in %s)", tok.ExpiresAt.UTC().Format(time.RFC3339), left)
}

func (a *app) whoamiCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "whoami",
		Short: "Show who the server says you are (exit status 4 if not logged in)",
		Long: `Ask the server who the token in use belongs to: username, name, e-mail,
tenant and roles, as the server's userinfo answers. --output json gives the
server's answer as JSON.

Exit status: 0 when the server answered, 4 when there is no token or the
server refuses it, 1 when the server could not be asked.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return a.whoami(cmd.Context()) },
	}
}

// whoamiReport is whoami's JSON: the server's userinfo and where it was
// asked.
type whoamiReport struct {
	cloudauth.UserInfo
	ServerURL string `json:"server_url"`
}

func (a *app) whoami(ctx context.Context) error {
	_, s, err := a.settings()
	if err != nil {
		return err
	}
	raw, source, err := a.token(ctx, s)
	if errors.Is(err, cloudauth.ErrNoToken) {
		fmt.Fprintf(a.env.Stderr, "Not logged in (profile %s). Log in with: cloudctl auth login\n", s.TokenKey())
		return notAuthenticated
	}
	if err != nil {
		return err
	}
	tok, err := cloudauth.ParseToken(raw)
	if err != nil {
		fmt.Fprintf(a.env.Stderr, "Not logged in: the token from %s is not a token the server issued\n", source)
		return notAuthenticated
	}
	if s.URL == "" {
		return fmt.Errorf("no server URL to ask: set %s or use a profile", cloudauth.EnvURL)
	}
	c, err := a.client(s)
	if err != nil {
		return err
	}
	info, err := c.UserInfo(ctx, tok)
	if errors.Is(err, cloudauth.ErrUnauthorized) {
		fmt.Fprintf(a.env.Stderr, "Not logged in: %s does not accept the token from %s (expired, logged out, or revoked)\n", s.URL, source)
		return notAuthenticated
	}
	if err != nil {
		return err
	}
	if a.json() {
		return a.printJSON(whoamiReport{UserInfo: *info, ServerURL: s.URL})
	}
	a.printf("Username: %s", info.Username)
	if info.Name != "" {
		a.printf("Name:     %s", info.Name)
	}
	if info.Email != "" {
		a.printf("Email:    %s", info.Email)
	}
	a.printf("Tenant:   %s", info.Tenant)
	if len(info.Roles) > 0 {
		a.printf("Roles:    %s", strings.Join(info.Roles, ", "))
	}
	a.printf("Server:   %s", s.URL)
	return nil
}

func (a *app) tokenCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "token",
		Short: "Print the token, for scripts (exit status 4 if there is none)",
		Long: `Print the token in use (the profile's stored token, or CLI_TOKEN) on standard
output, alone on its line, for scripts and other tools:

  curl -H "Authorization: Bearer $(cloudctl auth token)" https://cloud.example.com/...

The token is not checked with the server (use auth status for that), but an
expired one is not printed. --output json adds its expiry, its profile and
where it came from.

Exit status: 0 when printed, 4 when there is no token or it has expired.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return a.printToken(cmd.Context()) },
	}
}

func (a *app) printToken(ctx context.Context) error {
	_, s, err := a.settings()
	if err != nil {
		return err
	}
	raw, source, err := a.token(ctx, s)
	if errors.Is(err, cloudauth.ErrNoToken) {
		fmt.Fprintf(a.env.Stderr, "Not logged in (profile %s). Log in with: cloudctl auth login\n", s.TokenKey())
		return notAuthenticated
	}
	if err != nil {
		return err
	}
	tok, err := cloudauth.ParseToken(raw)
	if err != nil {
		fmt.Fprintf(a.env.Stderr, "Not logged in: the token from %s is not a token the server issued\n", source)
		return notAuthenticated
	}
	if tok.Expired(a.env.Clock.Now()) {
		fmt.Fprintf(a.env.Stderr, "Not logged in: the token from %s expired at %s\n", source, tok.ExpiresAt.UTC().Format(time.RFC3339))
		return notAuthenticated
	}
	if a.json() {
		out := struct {
			Token       string `json:"token"`
			Profile     string `json:"profile"`
			TokenSource string `json:"token_source"`
			ExpiresAt   string `json:"expires_at,omitempty"`
		}{Token: raw, Profile: s.TokenKey(), TokenSource: source}
		if !tok.ExpiresAt.IsZero() {
			out.ExpiresAt = tok.ExpiresAt.UTC().Format(time.RFC3339)
		}
		return a.printJSON(out)
	}
	a.printf("%s", raw)
	return nil
}

func (a *app) logoutCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "logout",
		Short: "Revoke the token on the server and forget the stored one",
		Long: `Ask the server to revoke the token in use, then remove the stored token.
Both are revoked when CLI_TOKEN is set and a token is stored too; the one in
CLI_TOKEN cannot be removed from the environment by cloudctl, which says so.
cloudctl says what it did with each token. A stored token is removed even
when the server cannot be reached, and cloudctl says it was not revoked.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return a.logout(cmd.Context()) },
	}
}

func (a *app) logout(ctx context.Context) error {
	_, s, err := a.settings()
	if err != nil {
		return err
	}
	key := s.TokenKey()
	cred, err := a.loadCredential(key)
	stored := cred.AccessToken
	if errors.Is(err, cloudauth.ErrNoToken) {
		err = nil
	} else if err != nil {
		a.warnf("the stored token could not be read, so it cannot be revoked: %v", err)
	}
	if s.Token == "" && stored == "" && err == nil {
		a.printf("Not logged in (profile %s); nothing to do", key)
		return nil
	}
	storedName := fmt.Sprintf("the stored token (profile %s)", key)
	// First revoke, each token once: CLI_TOKEN's, then the stored one.
	revokedAll, where := err == nil, ""
	if s.Token != "" {
		ok, u := a.revoke(ctx, s, s.Token, "the token from "+cloudauth.EnvToken)
		revokedAll, where = revokedAll && ok, u
	}
	if stored != "" && stored != s.Token {
		ok, u := a.revoke(ctx, s, stored, storedName)
		revokedAll, where = revokedAll && ok, u
	}
	// Then clear.
	removed := false
	if stored != "" || err != nil {
		if derr := a.store.Delete(key); derr != nil {
			// A keyring that cannot be reached cannot be cleared either;
			// what matters is that no token can be read any more.
			if _, lerr := a.store.Load(key); !errors.Is(lerr, cloudauth.ErrNoToken) {
				return fmt.Errorf("%s could not be removed: %w", storedName, derr)
			}
			a.debugf("%v", derr)
		}
		removed = true
		a.printf("Removed %s", storedName)
	}
	if s.Token != "" {
		a.warnf("%s is still set in the environment; unset it, cloudctl cannot", cloudauth.EnvToken)
	}
	switch {
	case revokedAll && where != "":
		a.printf("Logged out of %s", where)
	case removed:
		a.printf("Logged out (locally)")
	default:
		return errors.New("not logged out: the token could not be revoked")
	}
	return nil
}

// revoke asks the server to revoke a token and says what came of it. It
// reports whether the token is of no more use on the server (revoked now,
// or already), and the server asked.
func (a *app) revoke(ctx context.Context, s *cloudauth.Settings, raw, what string) (bool, string) {
	tok, err := cloudauth.ParseToken(raw)
	if err != nil {
		a.warnf("%s is not a token the server issued, so the server was not asked to revoke it: %v", what, err)
		return false, ""
	}
	u := s.URL
	if u == "" && tok.Issuer != "" && cloudauth.CheckURL(tok.Issuer) == nil {
		u = strings.TrimRight(tok.Issuer, "/")
	}
	if u == "" {
		a.warnf("could not revoke %s: no server URL (set %s or use a profile)", what, cloudauth.EnvURL)
		return false, ""
	}
	cs := *s
	cs.URL = u
	c, err := a.client(&cs)
	if err != nil {
		a.warnf("could not revoke %s: %v", what, err)
		return false, u
	}
	err = c.Logout(ctx, tok)
	switch {
	case err == nil:
		a.printf("Revoked %s on %s", what, u)
		return true, u
	case errors.Is(err, cloudauth.ErrUnauthorized):
		a.printf("%s had already been ended by %s", capitalize(what), u)
		return true, u
	}
	a.warnf("could not revoke %s on %s: %v", what, u, err)
	var ce *cloudauth.Error
	if errors.As(err, &ce) {
		a.debugf("cause: %s", ce.Detail())
	}
	return false, u
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
