package main

import (
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/apitwin/apitwin/cloudauth"
)

func (a *app) authCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "auth",
		Short: "Log in, check the login, log out",
		Args:  args(cobra.NoArgs),
		RunE:  func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(a.loginCommand(), a.statusCommand(), a.logoutCommand())
	return cmd
}

func (a *app) loginCommand() *cobra.Command {
	var o cloudauth.Overrides
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
input:

  echo "$PASSWORD" | cloudctl auth login --url https://cloud.example.com --username alice`,
		Args: args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			a.flags.URL, a.flags.Tenant, a.flags.Username = o.URL, o.Tenant, o.Username
			return a.login(cmd)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&o.Username, "username", "u", "", "username (default: $CLI_USERNAME, else the profile's, else asked)")
	f.StringVar(&o.URL, "url", "", "server URL (default: $CLI_URL, else the profile's, else asked)")
	f.StringVar(&o.Tenant, "tenant", "", "tenant (default: $CLI_TENANT, else the profile's, else asked, "+cloudauth.DefaultTenant+" if left empty)")
	return cmd
}

func (a *app) login(cmd *cobra.Command) error {
	cfg, s, err := a.settings()
	if err != nil {
		return err
	}
	if s.Username == "" {
		if s.Username, err = a.prompt("Username", ""); err != nil {
			return err
		}
	}
	password, err := a.promptPassword()
	if err != nil {
		return err
	}
	if s.URL == "" {
		u, err := a.prompt("Server URL", "")
		if err != nil {
			return err
		}
		if err := cloudauth.CheckURL(u); err != nil {
			return err
		}
		s.URL = u
	}
	if s.Sources["tenant"] == "default" {
		if s.Tenant, err = a.prompt("Tenant", cloudauth.DefaultTenant); err != nil {
			return err
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
	key := s.TokenKey()
	if err := a.store.Save(key, tok.Raw()); err != nil {
		var w *cloudauth.InsecureStorageError
		if !errors.As(err, &w) {
			return fmt.Errorf("logged in, but the token could not be stored: %w", err)
		}
		a.warnf("%v", w)
		a.debugf("keyring: %v", w.Err)
		if w.Location != "" {
			a.debugf("the token is kept in %s, readable only by you", w.Location)
		}
	}
	// The profile in use remembers where its token is from, so that status
	// and logout speak of the same server.
	p := cloudauth.Profile{Name: key, URL: s.URL, Tenant: s.Tenant, Username: s.Username}
	if old, ok := cfg.Profile(key); !ok || old != p || cfg.Current == "" && s.Profile == "" {
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

func (a *app) statusCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "status",
		Short: "Say whether you are logged in (exit status 0 only if so)",
		Long: `Say whether you are logged in: whether a token is stored for the profile in
use (or given in CLI_TOKEN) and has not expired. --verbose adds when it
expires. The exit status is 0 when logged in and 1 otherwise.`,
		Args: args(cobra.NoArgs),
		RunE: func(*cobra.Command, []string) error { return a.status() },
	}
}

func (a *app) status() error {
	_, s, err := a.settings()
	if err != nil {
		return err
	}
	raw, source, err := a.token(s)
	if errors.Is(err, cloudauth.ErrNoToken) {
		a.printf("Not logged in (profile %s). Log in with: cloudctl auth login", s.TokenKey())
		a.debugf("%v", err)
		return &exitError{code: exitFailure}
	}
	if err != nil {
		return err
	}
	tok, err := cloudauth.ParseToken(raw)
	if err != nil {
		a.printf("Not logged in: the token from %s is not valid", source)
		a.debugf("%v", err)
		return &exitError{code: exitFailure}
	}
	now := a.env.Clock.Now()
	if tok.Expired(now) {
		a.printf("Not logged in: the token from %s expired at %s", source, tok.ExpiresAt.UTC().Format(time.RFC3339))
		return &exitError{code: exitFailure}
	}
	where := s.URL
	if where == "" {
		where = tok.Issuer
	}
	a.printf("Logged in to %s as %s (tenant %s)", where, tok.Subject, tok.Tenant)
	if a.verbose {
		a.printf("Profile: %s", s.TokenKey())
		a.printf("Token from: %s", source)
		if tok.ExpiresAt.IsZero() {
			a.printf("Token expires: never (it carries no expiry)")
		} else {
			a.printf("Token expires at %s", describeExpiry(tok, now))
		}
	}
	return nil
}

// token returns the token in use: CLI_TOKEN, else the stored one.
func (a *app) token(s *cloudauth.Settings) (raw, source string, err error) {
	if s.Token != "" {
		return s.Token, cloudauth.EnvToken, nil
	}
	raw, err = a.store.Load(s.TokenKey())
	return raw, "the token store", err
}

func describeExpiry(tok *cloudauth.Token, now time.Time) string {
	left := tok.TimeLeft(now).Round(time.Second)
	return fmt.Sprintf("%s (in %s)", tok.ExpiresAt.UTC().Format(time.RFC3339), left)
}

func (a *app) logoutCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "logout",
		Short: "Log out on the server and forget the stored token",
		Long: `Ask the server to end the token's session, then remove the stored token.
The token is removed even when the server cannot be reached, and cloudctl
says so.`,
		Args: args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error { return a.logout(cmd) },
	}
}

func (a *app) logout(cmd *cobra.Command) error {
	_, s, err := a.settings()
	if err != nil {
		return err
	}
	raw, _, err := a.token(s)
	if errors.Is(err, cloudauth.ErrNoToken) {
		a.printf("Not logged in (profile %s); nothing to do", s.TokenKey())
		return nil
	}
	if err != nil {
		a.warnf("the stored token could not be read: %v", err)
	}
	serverSaid := a.serverLogout(cmd, s, raw)
	if err := a.store.Delete(s.TokenKey()); err != nil {
		// A keyring that cannot be reached cannot be cleared either; what
		// matters is that no token can be read any more.
		if _, lerr := a.store.Load(s.TokenKey()); !errors.Is(lerr, cloudauth.ErrNoToken) {
			return fmt.Errorf("the stored token could not be removed: %w", err)
		}
		a.warnf("%v", err)
	}
	a.printf("Logged out%s", serverSaid)
	if s.Token != "" {
		a.warnf("%s is set in the environment; unset it to stop using that token", cloudauth.EnvToken)
	}
	return nil
}

// serverLogout asks the server to end the session and describes the
// outcome for the logout message.
func (a *app) serverLogout(cmd *cobra.Command, s *cloudauth.Settings, raw string) string {
	if raw == "" {
		return ""
	}
	tok, err := cloudauth.ParseToken(raw)
	if err != nil {
		a.warnf("the token is not valid, so the server was not told: %v", err)
		return " (locally)"
	}
	if s.URL == "" && tok.Issuer != "" && cloudauth.CheckURL(tok.Issuer) == nil {
		s.URL = tok.Issuer
	}
	c, err := a.client(s)
	if err != nil {
		a.warnf("the server was not told: %v", err)
		return " (locally)"
	}
	err = c.Logout(cmd.Context(), tok)
	switch {
	case err == nil:
		return " of " + s.URL
	case errors.Is(err, cloudauth.ErrUnauthorized):
		return " of " + s.URL + " (the server had already ended the session)"
	}
	a.warnf("the server could not be told: %v; the stored token is removed all the same", err)
	var ce *cloudauth.Error
	if errors.As(err, &ce) {
		a.debugf("cause: %s", ce.Detail())
	}
	return " (locally)"
}
