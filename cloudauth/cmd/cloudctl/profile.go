package main

import (
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/apitwin/apitwin/cloudauth"
)

func (a *app) profileCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "profile",
		Short: "Create, select, list and show connection profiles",
		Long: `A profile is a named environment: a server URL, a tenant and optionally a
username. Profiles are kept in config.json in cloudctl's configuration
directory; the current one is used unless --profile or CLI_PROFILE names
another.`,
		Args: args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(a.profileCreateCommand(), a.profileUseCommand(), a.profileListCommand(), a.profileCurrentCommand())
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
Without --tenant, logins use the default tenant (` + cloudauth.DefaultTenant + `).`,
		Args: args(cobra.ExactArgs(1)),
		RunE: func(_ *cobra.Command, argv []string) error {
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
	_ = cmd.MarkFlagRequired("url")
	return cmd
}

func describeProfile(p cloudauth.Profile) string {
	s := p.URL
	tenant := p.Tenant
	if tenant == "" {
		tenant = cloudauth.DefaultTenant + ", the default"
	}
	s += ", tenant " + tenant
	if p.Username != "" {
		s += ", username " + p.Username
	}
	return s
}

func (a *app) profileUseCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "use <name>",
		Short: "Make a profile the current one",
		Args:  args(cobra.ExactArgs(1)),
		RunE: func(_ *cobra.Command, argv []string) error {
			if _, err := cloudauth.UpdateConfig(a.dir, func(cfg *cloudauth.Config) error { return cfg.Use(argv[0]) }); err != nil {
				return err
			}
			a.printf("Now using profile %s", argv[0])
			return nil
		},
	}
}

func (a *app) profileListCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List the profiles, marking the current one with *",
		Args:  args(cobra.NoArgs),
		RunE: func(*cobra.Command, []string) error {
			cfg, err := cloudauth.LoadConfig(a.dir)
			if err != nil {
				return err
			}
			profiles := cfg.List()
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
		Args:  args(cobra.NoArgs),
		RunE: func(*cobra.Command, []string) error {
			cfg, s, err := a.settings()
			if err != nil {
				return err
			}
			if s.Profile == "" {
				fmt.Fprintln(a.env.Stderr, "No profile in use. Create one with: cloudctl profile create <name> --url <url> --tenant <tenant>")
				return &exitError{code: exitFailure}
			}
			a.printf("%s", s.Profile)
			if a.verbose {
				p, _ := cfg.Profile(s.Profile)
				a.printf("  %s (from %s)", describeProfile(p), s.Sources["profile"])
			}
			return nil
		},
	}
}
