package main

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/apitwin/apitwin/orch/orchpb"
)

func (a *app) operatorCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "operator",
		Short: "Administer the service: search attributes",
		Args:  noArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	sa := &cobra.Command{
		Use:     "search-attribute",
		Aliases: []string{"sa"},
		Short:   "Create, list and remove a namespace's custom search attributes",
		Args:    noArgs,
		RunE:    func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	sa.AddCommand(a.saCreateCommand(), a.saListCommand(), a.saRemoveCommand())
	cmd.AddCommand(sa)
	return cmd
}

// typeNames are the types a custom search attribute may have, as
// Temporal's CLI spells them (orchctl also takes the contract's names:
// KEYWORD_LIST, keyword_list).
var typeNames = map[orchpb.IndexedValueType]string{
	orchpb.IndexedValueType_KEYWORD: "Keyword", orchpb.IndexedValueType_TEXT: "Text", orchpb.IndexedValueType_INT: "Int",
	orchpb.IndexedValueType_DOUBLE: "Double", orchpb.IndexedValueType_BOOL: "Bool", orchpb.IndexedValueType_DATETIME: "Datetime",
	orchpb.IndexedValueType_KEYWORD_LIST: "KeywordList",
}

func indexedType(name string) (orchpb.IndexedValueType, bool) {
	key := strings.ReplaceAll(name, "_", "")
	for t, n := range typeNames {
		if strings.EqualFold(n, key) {
			return t, true
		}
	}
	return 0, false
}

func typeName(t orchpb.IndexedValueType) string {
	if n, ok := typeNames[t]; ok {
		return n
	}
	return t.String()
}

func (a *app) saCreateCommand() *cobra.Command {
	var names, types []string
	cmd := &cobra.Command{
		Use:   "create --name NAME --type TYPE [--name NAME --type TYPE ...]",
		Short: "Register custom search attributes in the namespace",
		Long: `Register custom search attributes in the namespace, all or none: the n-th
--type is the n-th --name's. Types: Keyword, Text, Int, Double, Bool,
Datetime, KeywordList. A name registered already with the same type is
accepted; with another type the service refuses it (already exists).`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if len(names) == 0 || len(names) != len(types) {
				return usagef("want as many --type as --name (got %d --name, %d --type)", len(names), len(types))
			}
			attrs := make(map[string]orchpb.IndexedValueType, len(names))
			for i, n := range names {
				t, ok := indexedType(types[i])
				if !ok {
					return usagef("--type %q: want Keyword, Text, Int, Double, Bool, Datetime or KeywordList", types[i])
				}
				if n == "" {
					return usagef("--name: want a non-empty name")
				}
				attrs[n] = t
			}
			c, err := a.connect()
			if err != nil {
				return err
			}
			ctx, cancel := a.call(cmd)
			defer cancel()
			if err := c.AddSearchAttributes(ctx, attrs); err != nil {
				return err
			}
			return a.done(map[string]any{"namespace": a.namespace, "created": names},
				"Created search attributes %s in namespace %s", strings.Join(names, ", "), a.namespace)
		},
	}
	f := cmd.Flags()
	f.StringArrayVar(&names, "name", nil, "the attribute's name (repeatable)")
	f.StringArrayVar(&types, "type", nil, "its type: Keyword, Text, Int, Double, Bool, Datetime or KeywordList (repeatable)")
	_ = cmd.RegisterFlagCompletionFunc("type", cobra.FixedCompletions([]string{"Keyword", "Text", "Int", "Double", "Bool", "Datetime", "KeywordList"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

func (a *app) saListCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List the namespace's search attributes, custom and system, with their types",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := a.connect()
			if err != nil {
				return err
			}
			ctx, cancel := a.call(cmd)
			defer cancel()
			resp, err := c.Raw().ListSearchAttributes(ctx, &orchpb.ListSearchAttributesRequest{Namespace: a.namespace})
			if err != nil {
				return err
			}
			if a.json() {
				return a.printJSON(resp)
			}
			rows := [][]string{{"NAME", "TYPE", "KIND"}}
			for _, k := range sortedKeys(resp.GetCustomAttributes()) {
				rows = append(rows, []string{k, typeName(resp.GetCustomAttributes()[k]), "custom"})
			}
			for _, k := range sortedKeys(resp.GetSystemAttributes()) {
				rows = append(rows, []string{k, typeName(resp.GetSystemAttributes()[k]), "system"})
			}
			a.table(rows)
			return nil
		},
	}
}

func (a *app) saRemoveCommand() *cobra.Command {
	var names []string
	cmd := &cobra.Command{
		Use:   "remove --name NAME [--name NAME ...]",
		Short: "Remove custom search attributes from the namespace",
		Long: `Remove custom search attributes from the namespace, all or none: an unknown
name is not found, a system one refused. Runs keep the values they hold,
but queries can no longer name the attribute.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if len(names) == 0 {
				return usagef("want at least one --name")
			}
			c, err := a.connect()
			if err != nil {
				return err
			}
			ctx, cancel := a.call(cmd)
			defer cancel()
			if err := c.RemoveSearchAttributes(ctx, names...); err != nil {
				return err
			}
			return a.done(map[string]any{"namespace": a.namespace, "removed": names},
				"Removed search attributes %s from namespace %s", strings.Join(names, ", "), a.namespace)
		},
	}
	cmd.Flags().StringArrayVar(&names, "name", nil, "the attribute's name (repeatable)")
	return cmd
}
