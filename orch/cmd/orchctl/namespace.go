package main

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/apitwin/apitwin/orch"
	"github.com/apitwin/apitwin/orch/orchpb"
)

func (a *app) namespaceCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:     "namespace",
		Aliases: []string{"ns"},
		Short:   "List, describe, create, update, deprecate and delete namespaces",
		Args:    noArgs,
		RunE:    func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(a.nsListCommand(), a.nsDescribeCommand(), a.nsCreateCommand(), a.nsUpdateCommand(), a.nsDeprecateCommand(), a.nsDeleteCommand())
	return cmd
}

func (a *app) nsListCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List the namespaces",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := a.connect()
			if err != nil {
				return err
			}
			ctx, cancel := a.call(cmd)
			defer cancel()
			var list []*orchpb.DescribeNamespaceResponse
			for ns, err := range c.AllNamespaces(ctx, nil) {
				if err != nil {
					return err
				}
				list = append(list, ns)
			}
			if a.json() {
				raw, err := messages(list)
				if err != nil {
					return err
				}
				return a.printJSON(raw)
			}
			rows := [][]string{{"NAME", "STATE", "RETENTION", "OWNER", "DESCRIPTION"}}
			for _, ns := range list {
				i := ns.GetNamespaceInfo()
				rows = append(rows, []string{i.GetName(), nsState(i.GetState()), retention(ns.GetConfig()), i.GetOwnerEmail(), i.GetDescription()})
			}
			a.table(rows)
			return nil
		},
	}
}

func nsState(s orchpb.NamespaceState) string { return strings.ToLower(s.String()) }

// retention is a namespace's retention in days or hours.
func retention(cfg *orchpb.NamespaceConfig) string {
	d := cfg.GetWorkflowExecutionRetentionTtl().AsDuration()
	switch {
	case d == 0:
		return ""
	case d%(24*time.Hour) == 0:
		return strconv.FormatInt(int64(d/(24*time.Hour)), 10) + "d"
	}
	return d.String()
}

func (a *app) nsDescribeCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "describe NAME",
		Short: "Describe a namespace",
		Args:  exactArgs("a namespace name"),
		RunE: func(cmd *cobra.Command, argv []string) error {
			c, err := a.connect()
			if err != nil {
				return err
			}
			ctx, cancel := a.call(cmd)
			defer cancel()
			ns, err := c.DescribeNamespace(ctx, argv[0])
			if err != nil {
				return err
			}
			if a.json() {
				return a.printJSON(ns)
			}
			i, cfg := ns.GetNamespaceInfo(), ns.GetConfig()
			rows := [][2]string{
				{"Name", i.GetName()},
				{"ID", i.GetId()},
				{"State", nsState(i.GetState())},
				{"Description", i.GetDescription()},
				{"Owner email", i.GetOwnerEmail()},
				{"Retention", retention(ns.GetConfig())},
				{"History archival", strings.ToLower(cfg.GetHistoryArchivalState().String())},
				{"Visibility archival", strings.ToLower(cfg.GetVisibilityArchivalState().String())},
				{"Active cluster", ns.GetReplicationConfig().GetActiveClusterName()},
				{"Global", map[bool]string{true: "yes", false: "no"}[ns.GetIsGlobalNamespace()]},
			}
			for _, k := range sortedKeys(i.GetData()) {
				rows = append(rows, [2]string{"Data " + k, i.GetData()[k]})
			}
			a.fields(rows)
			return nil
		},
	}
}

func (a *app) nsCreateCommand() *cobra.Command {
	var description, owner string
	var keep time.Duration
	var data []string
	cmd := &cobra.Command{
		Use:   "create NAME [--retention 72h] [--description TEXT] [--owner-email ADDRESS]",
		Short: "Create a namespace",
		Long: `Create a namespace, usable at once. --retention is how long closed workflows
are kept (the service's default when not given; at least 24h).`,
		Args: exactArgs("a namespace name"),
		RunE: func(cmd *cobra.Command, argv []string) error {
			if keep < 0 {
				return usagef("--retention %v: want a positive duration such as 72h", keep)
			}
			opts := &orch.RegisterNamespaceOptions{Description: description, OwnerEmail: owner, Retention: keep}
			var err error
			if opts.Data, err = dataFlags(data); err != nil {
				return err
			}
			c, err := a.connect()
			if err != nil {
				return err
			}
			ctx, cancel := a.call(cmd)
			defer cancel()
			if err := c.RegisterNamespace(ctx, argv[0], opts); err != nil {
				return err
			}
			return a.done(map[string]any{"namespace": argv[0], "created": true}, "Created namespace %s", argv[0])
		},
	}
	f := cmd.Flags()
	f.DurationVar(&keep, "retention", 0, "how long closed workflows are kept (default: the service's)")
	f.StringVar(&description, "description", "", "what the namespace is for")
	f.StringVar(&owner, "owner-email", "", "who owns it")
	f.StringArrayVar(&data, "data", nil, "KEY=VALUE kept with the namespace (repeatable)")
	return cmd
}

// dataFlags reads --data KEY=VALUE flags.
func dataFlags(data []string) (map[string]string, error) {
	var out map[string]string
	for _, kv := range data {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, usagef("--data %q: want KEY=VALUE", kv)
		}
		if out == nil {
			out = map[string]string{}
		}
		out[k] = v
	}
	return out, nil
}

func (a *app) nsUpdateCommand() *cobra.Command {
	var description, owner string
	var keep time.Duration
	var data []string
	cmd := &cobra.Command{
		Use:   "update NAME [--retention 168h] [--description TEXT] [--owner-email ADDRESS] [--data KEY=VALUE]",
		Short: "Change a namespace's description, owner, retention or data",
		Long: `Change what the flags give and keep the rest: --data entries are merged into
the namespace's data. Prints the namespace as it is now.`,
		Args: exactArgs("a namespace name"),
		RunE: func(cmd *cobra.Command, argv []string) error {
			if keep < 0 {
				return usagef("--retention %v: want a positive duration such as 168h", keep)
			}
			opts := &orch.UpdateNamespaceOptions{Description: description, OwnerEmail: owner, Retention: keep}
			var err error
			if opts.Data, err = dataFlags(data); err != nil {
				return err
			}
			c, err := a.connect()
			if err != nil {
				return err
			}
			ctx, cancel := a.call(cmd)
			defer cancel()
			ns, err := c.UpdateNamespace(ctx, argv[0], opts)
			if err != nil {
				return err
			}
			if a.json() {
				return a.printJSON(ns)
			}
			a.printf("Updated namespace %s: %s, retention %s", argv[0], nsState(ns.GetNamespaceInfo().GetState()),
				retention(ns.GetConfig()))
			return nil
		},
	}
	f := cmd.Flags()
	f.DurationVar(&keep, "retention", 0, "how long closed workflows are kept (at least 24h)")
	f.StringVar(&description, "description", "", "what the namespace is for")
	f.StringVar(&owner, "owner-email", "", "who owns it")
	f.StringArrayVar(&data, "data", nil, "KEY=VALUE merged into the namespace's data (repeatable)")
	return cmd
}

func (a *app) nsDeprecateCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "deprecate NAME",
		Short: "Deprecate a namespace: its workflows go on, new ones are refused",
		Args:  exactArgs("a namespace name"),
		RunE: func(cmd *cobra.Command, argv []string) error {
			c, err := a.connect()
			if err != nil {
				return err
			}
			ctx, cancel := a.call(cmd)
			defer cancel()
			if err := c.DeprecateNamespace(ctx, argv[0]); err != nil {
				return err
			}
			return a.done(map[string]any{"namespace": argv[0], "deprecated": true}, "Deprecated namespace %s", argv[0])
		},
	}
}

func (a *app) nsDeleteCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "delete NAME",
		Short: "Delete a namespace and every workflow in it",
		Args:  exactArgs("a namespace name"),
		RunE: func(cmd *cobra.Command, argv []string) error {
			c, err := a.connect()
			if err != nil {
				return err
			}
			ctx, cancel := a.call(cmd)
			defer cancel()
			if err := c.DeleteNamespace(ctx, argv[0]); err != nil {
				return err
			}
			return a.done(map[string]any{"namespace": argv[0], "deleted": true}, "Deleted namespace %s", argv[0])
		},
	}
}

func (a *app) taskQueueCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:     "task-queue",
		Aliases: []string{"tq"},
		Short:   "Describe task queues",
		Args:    noArgs,
		RunE:    func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	var side string
	describe := &cobra.Command{
		Use:   "describe NAME [--type workflow|activity]",
		Short: "Show a task queue's pollers and backlog",
		Args:  exactArgs("a task queue name"),
		RunE: func(cmd *cobra.Command, argv []string) error {
			t := orchpb.TaskQueueType_WORKFLOW
			switch side {
			case "workflow":
			case "activity":
				t = orchpb.TaskQueueType_ACTIVITY
			default:
				return usagef("--type %q: want workflow or activity", side)
			}
			c, err := a.connect()
			if err != nil {
				return err
			}
			ctx, cancel := a.call(cmd)
			defer cancel()
			resp, err := c.DescribeTaskQueue(ctx, argv[0], &orch.DescribeTaskQueueOptions{Type: t, IncludeStatus: true})
			if err != nil {
				return err
			}
			if a.json() {
				return a.printJSON(resp)
			}
			st := resp.GetTaskQueueStatus()
			a.fields([][2]string{
				{"Task queue", argv[0]},
				{"Type", side},
				{"Backlog", itoa(st.GetBacklogCountHint())},
				{"Tasks added", itoa(st.GetReadLevel())},
				{"Tasks handed out", itoa(st.GetAckLevel())},
				{"Rate per second", ftoa(st.GetRatePerSecond())},
			})
			pollers := slices.Clone(resp.GetPollers())
			slices.SortFunc(pollers, func(x, y *orchpb.PollerInfo) int { return cmp.Compare(x.GetIdentity(), y.GetIdentity()) })
			a.printf("")
			rows := [][]string{{"POLLER IDENTITY", "LAST ACCESS", "RATE PER SECOND"}}
			for _, p := range pollers {
				rows = append(rows, []string{p.GetIdentity(), when(p.GetLastAccessTime()), ftoa(p.GetRatePerSecond())})
			}
			a.table(rows)
			return nil
		},
	}
	describe.Flags().StringVar(&side, "type", "workflow", "the queue's side: workflow or activity")
	_ = describe.RegisterFlagCompletionFunc("type", cobra.FixedCompletions([]string{"workflow", "activity"}, cobra.ShellCompDirectiveNoFileComp))
	cmd.AddCommand(describe)
	return cmd
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
