package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/apitwin/apitwin/cloudauth"
)

func (a *app) profileUpdateCommand() *cobra.Command {
	var p cloudauth.Profile
	cmd := &cobra.Command{
		Use:   "update <name> [--url <url>] [--tenant <tenant>] [--username <name>]",
		Short: "Change a profile's server URL, tenant or username",
		Long: `Change the settings given of a profile and keep the others. --tenant ""
clears the tenant (logins then leave it to the server's default), and
--username "" the username. The stored token is kept; after a change of
server URL it is the old server's, which auth status then says: log in
again.`,
		Args:              oneArg("a profile name"),
		ValidArgsFunction: a.completeOneProfile,
		RunE: func(cmd *cobra.Command, argv []string) error {
			f := cmd.Flags()
			if !f.Changed("url") && !f.Changed("tenant") && !f.Changed("username") {
				return &usageError{fmt.Errorf("%s needs --url, --tenant or --username", cmdName(cmd))}
			}
			name := argv[0]
			var before, after cloudauth.Profile
			_, err := cloudauth.UpdateConfig(a.dir, func(cfg *cloudauth.Config) error {
				old, ok := cfg.Profile(name)
				if !ok {
					return fmt.Errorf("profile %q does not exist", name)
				}
				before, after = old, old
				if f.Changed("url") {
					after.URL = p.URL
				}
				if f.Changed("tenant") {
					after.Tenant = p.Tenant
				}
				if f.Changed("username") {
					after.Username = p.Username
				}
				return cfg.Add(after)
			})
			if err != nil {
				return err
			}
			a.printf("Updated profile %s (%s)", name, describeProfile(after))
			if before.URL != after.URL {
				if _, err := a.store.Load(name); err == nil {
					a.warnf("the token stored for profile %s is from %s; log in again: cloudctl auth login --profile %s", name, before.URL, name)
				}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&p.URL, "url", "", "server URL")
	f.StringVar(&p.Tenant, "tenant", "", "tenant (\"\": the server's default)")
	f.StringVarP(&p.Username, "username", "u", "", "username to log in with")
	return cmd
}

func (a *app) profileRenameCommand() *cobra.Command {
	return &cobra.Command{
		Use:               "rename <old> <new>",
		Short:             "Rename a profile, its stored token with it",
		Args:              twoArgs("the old and the new profile name"),
		ValidArgsFunction: a.completeOneProfile,
		RunE: func(_ *cobra.Command, argv []string) error {
			from, to := argv[0], argv[1]
			if err := cloudauth.ValidProfileName(to); err != nil {
				return &usageError{err}
			}
			cfg, err := cloudauth.LoadConfig(a.dir)
			if err != nil {
				return err
			}
			if _, ok := cfg.Profile(from); !ok {
				return fmt.Errorf("profile %q does not exist", from)
			}
			if _, ok := cfg.Profile(to); ok {
				return fmt.Errorf("profile %q already exists", to)
			}
			// The token first, under the new name, so that a failure
			// leaves the old profile whole.
			stored, err := a.store.Load(from)
			moved := err == nil
			switch {
			case moved:
				if err := a.store.Save(to, stored); err != nil {
					var w *cloudauth.InsecureStorageError
					if !errors.As(err, &w) {
						return fmt.Errorf("the stored token could not be moved, so the profile keeps its name: %w", err)
					}
					a.warnf("%v (%s)", w, keyringReason(w.Err))
				}
			case !errors.Is(err, cloudauth.ErrNoToken):
				return fmt.Errorf("the stored token could not be read, so the profile keeps its name: %w", err)
			}
			if _, err := cloudauth.UpdateConfig(a.dir, func(cfg *cloudauth.Config) error { return cfg.Rename(from, to) }); err != nil {
				if moved {
					_ = a.store.Delete(to)
				}
				return err
			}
			if moved {
				if err := a.store.Delete(from); err != nil {
					a.warnf("the token stored under the old name %s could not be removed: %v", from, err)
				}
			}
			// The other accounts' tokens, keyed by the profile's name too.
			old, _ := cfg.Profile(from)
			for _, u := range old.Accounts {
				if tok, err := a.store.Load(accountKey(from, u)); err == nil {
					if err := a.saveAccount(accountKey(to, u), tok); err != nil {
						a.warnf("the token of %s could not be moved: %v", u, err)
						continue
					}
					_ = a.store.Delete(accountKey(from, u))
				}
			}
			a.printf("Renamed profile %s to %s", from, to)
			return nil
		},
	}
}

// twoArgs wants exactly two arguments, described by what.
func twoArgs(what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, argv []string) error {
		if len(argv) != 2 {
			return &usageError{fmt.Errorf("%s takes 2 arguments (%s), not %d", cmdName(cmd), what, len(argv))}
		}
		return nil
	}
}
