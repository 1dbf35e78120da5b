package main

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/apitwin/apitwin/cloudauth"
)

// Several accounts on one server, as gh keeps several users per host: the
// profile's active account's token is stored under the profile's name (as
// it always was); each other account's under accountKey, and the profile
// lists their usernames (Profile.Accounts) for auth switch and auth status.

// accountKey is the token-store key of a profile's account that is not
// the active one: a name the store takes whatever the username holds
// ('@', spaces), the same for the same profile and user.
func accountKey(profile, username string) string {
	sum := sha256.Sum256([]byte(profile + "\x00" + username))
	return "account-" + hex.EncodeToString(sum[:16])
}

// accountsAfterLogin works out the other accounts of a profile once user
// has logged in to url on it, and keeps the token of the account the login
// replaces as the active one. A login to another server drops the
// profile's other accounts (their tokens are another server's).
func (a *app) accountsAfterLogin(key string, old cloudauth.Profile, hadOld bool, url, user string) []string {
	if !hadOld {
		return nil
	}
	if old.URL != url {
		for _, acct := range old.Accounts {
			_ = a.store.Delete(accountKey(key, acct))
		}
		return nil
	}
	accounts := slices.DeleteFunc(slices.Clone(old.Accounts), func(u string) bool { return u == user })
	if len(accounts) != len(old.Accounts) {
		_ = a.store.Delete(accountKey(key, user)) // this login replaces it
	}
	if old.Username == "" || old.Username == user {
		return accounts
	}
	stored, err := a.store.Load(key)
	if err != nil {
		return accounts
	}
	if err := a.saveAccount(accountKey(key, old.Username), stored); err != nil {
		a.warnf("the token of %s could not be kept for auth switch: %v", old.Username, err)
		return accounts
	}
	a.printf("Kept the login of %s on profile %s (switch back with: cloudctl auth switch --user %s)", old.Username, key, old.Username)
	return append(accounts, old.Username)
}

// saveAccount stores a token under an account's key; the store's fallback
// warning is said and is not an error.
func (a *app) saveAccount(key, stored string) error {
	err := a.store.Save(key, stored)
	var w *cloudauth.InsecureStorageError
	if errors.As(err, &w) {
		a.warnf("%v (%s)", w, keyringReason(w.Err))
		return nil
	}
	return err
}

func (a *app) switchCommand() *cobra.Command {
	var user string
	cmd := &cobra.Command{
		Use:   "switch [--user <username>]",
		Short: "Switch the profile in use to another account logged in on its server",
		Long: `Make another account logged in on the server of the profile in use the
active one: the one whose token commands use. A login as another user on a
profile keeps the account before it; auth status lists them. Without --user,
with exactly two accounts, it switches to the other.`,
		Args: noArgs,
		RunE: func(*cobra.Command, []string) error { return a.switchAccount(user) },
	}
	cmd.Flags().StringVarP(&user, "user", "u", "", "the account to switch to")
	return cmd
}

func (a *app) switchAccount(user string) error {
	_, s, err := a.settings()
	if err != nil {
		return err
	}
	key := s.TokenKey()
	cfg, err := cloudauth.LoadConfig(a.dir)
	if err != nil {
		return err
	}
	p, ok := cfg.Profile(key)
	if !ok || len(p.Accounts) == 0 {
		return fmt.Errorf("profile %s has no other account to switch to; log in as another user first: cloudctl auth login -u <username>", key)
	}
	switch {
	case user == "" && len(p.Accounts) == 1:
		user = p.Accounts[0]
	case user == "":
		return &usageError{fmt.Errorf("profile %s has several accounts (%s, active; %s): say which with --user", key, p.Username, strings.Join(p.Accounts, ", "))}
	case user == p.Username:
		a.printf("%s is already the active account of profile %s", user, key)
		return nil
	case !slices.Contains(p.Accounts, user):
		return fmt.Errorf("%s is not logged in on profile %s (its accounts: %s, %s)", user, key, p.Username, strings.Join(p.Accounts, ", "))
	}
	target, err := a.store.Load(accountKey(key, user))
	if err != nil {
		return fmt.Errorf("the token of %s could not be read: %w", user, err)
	}
	// The active account's token goes to its account key first, so that
	// a failure loses no token.
	accounts := slices.DeleteFunc(slices.Clone(p.Accounts), func(u string) bool { return u == user })
	if active, err := a.store.Load(key); err == nil && p.Username != "" {
		if err := a.saveAccount(accountKey(key, p.Username), active); err != nil {
			return fmt.Errorf("the token of %s could not be kept, so nothing was switched: %w", p.Username, err)
		}
		accounts = append(accounts, p.Username)
	}
	if err := a.saveAccount(key, target); err != nil {
		return fmt.Errorf("the token of %s could not be made the active one: %w", user, err)
	}
	if _, err := cloudauth.UpdateConfig(a.dir, func(cfg *cloudauth.Config) error {
		cur, ok := cfg.Profile(key)
		if !ok {
			return fmt.Errorf("profile %q does not exist", key)
		}
		cur.Username, cur.Accounts = user, accounts
		return cfg.Add(cur)
	}); err != nil {
		return err
	}
	_ = a.store.Delete(accountKey(key, user))
	a.printf("Switched profile %s to account %s on %s", key, user, p.URL)
	return nil
}
