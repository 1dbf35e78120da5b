package main

import (
	"context"
	"errors"
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/apitwin/apitwin/cloudauth"
)

func (a *app) profileCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "profile",
		Short: "Create, select, list, show and delete connection profiles",
		Long: `A profile is a named environment: a server URL, a tenant and optionally a
username. Profiles are kept in config.json in cloudctl's configuration
directory; the current one is used unless --profile or CLI_PROFILE names
another.`,
		Args: subcommandOnly,
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(a.profileCreateCommand(), a.profileUseCommand(), a.profileListCommand(), a.profileCurrentCommand(),
		a.profileDeleteCommand(), a.profileUpdateCommand(), a.profileRenameCommand())
	return cmd
}

func (a *app) profileCreateCommand() *cobra.Command {
	var (
		p     cloudauth.Profile
		force bool
	)
	cmd := &cobra.Command{
		Use:   "create <name> --url <url> --tenant <tenant>",
		Short: "Create a profile",
		Long: `Create a profile. The first profile created becomes the current one.
Without --tenant, logins send none and the server's default tenant applies.`,
		Args: oneArg("a profile name"),
		RunE: func(cmd *cobra.Command, argv []string) error {
			if p.URL == "" {
				return &usageError{fmt.Errorf("%s needs --url", cmdName(cmd))}
			}
			p.Name = argv[0]
			cfg, err := cloudauth.UpdateConfig(a.dir, func(cfg *cloudauth.Config) error {
				if _, exists := cfg.Profile(p.Name); exists && !force {
					return fmt.Errorf("profile %q already exists (use --force to replace it)", p.Name)
				}
				if err := cfg.Add(p); err != nil {
					return err
				}
				if cfg.Current == "" {
					cfg.Current = p.Name
				}
				return nil
			})
			if err != nil {
				return err
			}
			a.printf("Created profile %s (%s)", p.Name, describeProfile(p))
			if cfg.Current == p.Name {
				a.printf("Now using profile %s", p.Name)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&p.URL, "url", "", "server URL (required)")
	f.StringVar(&p.Tenant, "tenant", "", "tenant")
	f.StringVarP(&p.Username, "username", "u", "", "username to log in with")
	f.BoolVar(&force, "force", false, "replace a profile of the same name")
	return cmd
}

func describeProfile(p cloudauth.Profile) string {
	s := p.URL
	tenant := p.Tenant
	if tenant == "" {
		tenant = "the server's default"
	}
	s += ", tenant " + tenant
	if p.Username != "" {
		s += ", username " + p.Username
	}
	return s
}

// completeProfiles completes a profile name from the configuration.
func (a *app) completeProfiles(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	if err := a.setup(); err != nil {
		return nil, cobra.ShellCompDirectiveError
	}
	cfg, err := cloudauth.LoadConfig(a.dir)
	if err != nil {
		return nil, cobra.ShellCompDirectiveError
	}
	var names []string
	for _, p := range cfg.List() {
		names = append(names, p.Name+"\t"+p.URL)
	}
	return names, cobra.ShellCompDirectiveNoFileComp
}

// completeOneProfile completes the one profile-name argument of a command.
func (a *app) completeOneProfile(cmd *cobra.Command, argv []string, to string) ([]string, cobra.ShellCompDirective) {
	if len(argv) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	return a.completeProfiles(cmd, argv, to)
}

func (a *app) profileUseCommand() *cobra.Command {
	return &cobra.Command{
		Use:               "use <name>",
		Short:             "Make a profile the current one",
		Args:              oneArg("a profile name"),
		ValidArgsFunction: a.completeOneProfile,
		RunE: func(_ *cobra.Command, argv []string) error {
			if _, err := cloudauth.UpdateConfig(a.dir, func(cfg *cloudauth.Config) error { return cfg.Use(argv[0]) }); err != nil {
				return err
			}
			a.printf("Now using profile %s", argv[0])
			return nil
		},
	}
}

// profileJSON is a profile in --output json.
type profileJSON struct {
	Name     string `json:"name"`
	URL      string `json:"url"`
	Tenant   string `json:"tenant,omitempty"`
	Username string `json:"username,omitempty"`
	Current  bool   `json:"current"`
}

func (a *app) profileListCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List the profiles, marking the current one with *",
		Args:  noArgs,
		RunE: func(*cobra.Command, []string) error {
			cfg, err := cloudauth.LoadConfig(a.dir)
			if err != nil {
				return err
			}
			profiles := cfg.List()
			if a.json() {
				out := struct {
					Current  string        `json:"current_profile"`
					Profiles []profileJSON `json:"profiles"`
				}{Current: cfg.Current, Profiles: []profileJSON{}}
				for _, p := range profiles {
					out.Profiles = append(out.Profiles, profileJSON{p.Name, p.URL, p.Tenant, p.Username, p.Name == cfg.Current})
				}
				return a.printJSON(out)
			}
			if len(profiles) == 0 {
				a.printf("No profiles. Create one with: cloudctl profile create <name> --url <url> --tenant <tenant>")
				return nil
			}
			tw := tabwriter.NewWriter(a.env.Stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "  NAME\tURL\tTENANT\tUSERNAME")
			for _, p := range profiles {
				mark := " "
				if p.Name == cfg.Current {
					mark = "*"
				}
				fmt.Fprintf(tw, "%s %s\t%s\t%s\t%s\n", mark, p.Name, p.URL, orDash(p.Tenant), orDash(p.Username))
			}
			return tw.Flush()
		},
	}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func (a *app) profileCurrentCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "current",
		Short: "Show the profile in use (exit status 1 when there is none)",
		Args:  noArgs,
		RunE: func(*cobra.Command, []string) error {
			cfg, s, err := a.settings()
			if err != nil {
				return err
			}
			if s.Profile == "" {
				fmt.Fprintln(a.env.Stderr, "No profile in use. Create one with: cloudctl profile create <name> --url <url> --tenant <tenant>")
				return &exitError{code: exitFailure}
			}
			p, _ := cfg.Profile(s.Profile)
			if a.json() {
				return a.printJSON(struct {
					profileJSON
					Source string `json:"source"`
				}{profileJSON{p.Name, p.URL, p.Tenant, p.Username, p.Name == cfg.Current}, s.Sources["profile"]})
			}
			a.printf("%s", s.Profile)
			if a.verbose {
				a.printf("  %s (from %s)", describeProfile(p), s.Sources["profile"])
			}
			return nil
		},
	}
}

func (a *app) profileDeleteCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "delete <name>",
		Short: "Delete a profile, revoking and removing its stored token",
		Long: `Delete a profile. Its stored token, if any, is first revoked on the profile's
server and removed, as auth logout would; a token the server cannot be told
about is removed all the same, and cloudctl says so. Deleting the current
profile leaves none current.`,
		Args:              oneArg("a profile name"),
		ValidArgsFunction: a.completeOneProfile,
		RunE: func(cmd *cobra.Command, argv []string) error {
			return a.profileDelete(cmd.Context(), argv[0])
		},
	}
}

func (a *app) profileDelete(ctx context.Context, name string) error {
	cfg, err := cloudauth.LoadConfig(a.dir)
	if err != nil {
		return err
	}
	p, ok := cfg.Profile(name)
	if !ok {
		return fmt.Errorf("profile %q does not exist", name)
	}
	// The certificate settings, from the flags and the environment as for
	// every command (--no-verify-ssl, CLI_VERIFY_SSL, --ca-cert,
	// CLI_CA_CERT); the server is the profile's own.
	tls, err := cloudauth.ResolveSettings(cloudauth.Overrides{Profile: name, NoVerifySSL: a.flags.NoVerifySSL, CACert: a.flags.CACert}, a.env.Getenv, cfg)
	if err != nil {
		return err
	}
	// The token first, so that a failure leaves the profile to retry with.
	cred, err := a.loadCredential(name)
	stored := cred.AccessToken
	switch {
	case err == nil:
		what := fmt.Sprintf("the stored token (profile %s)", name)
		a.revoke(ctx, &cloudauth.Settings{Profile: name, URL: p.URL, Tenant: p.Tenant, VerifySSL: tls.VerifySSL,
			CACert: tls.CACert}, stored, what)
		if err := a.store.Delete(name); err != nil {
			return fmt.Errorf("%s could not be removed, so the profile is kept: %w", what, err)
		}
		a.printf("Removed %s", what)
	case !errors.Is(err, cloudauth.ErrNoToken):
		a.warnf("the stored token of profile %s could not be read: %v", name, err)
	}
	for _, u := range p.Accounts {
		_ = a.store.Delete(accountKey(name, u))
	}
	wasCurrent := false
	if _, err := cloudauth.UpdateConfig(a.dir, func(cfg *cloudauth.Config) error {
		wasCurrent = cfg.Current == name
		return cfg.Delete(name)
	}); err != nil {
		return err
	}
	a.printf("Deleted profile %s", name)
	if wasCurrent {
		a.printf("No profile is current now; choose one with: cloudctl profile use <name>")
	}
	return nil
}
