package main

import (
	"fmt"

	"github.com/spf13/cobra"
)

func (a *app) completionCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "completion bash|zsh|fish|powershell",
		Short: "Print a shell completion script",
		Long: `Print the script that makes the shell complete cloudctl's commands, flags
and profile names. Load it in the current shell, or install it for every
new one:

  bash:        source <(cloudctl completion bash)
               cloudctl completion bash > /etc/bash_completion.d/cloudctl
  zsh:         cloudctl completion zsh > "${fpath[1]}/_cloudctl"
  fish:        cloudctl completion fish > ~/.config/fish/completions/cloudctl.fish
  PowerShell:  cloudctl completion powershell | Out-String | Invoke-Expression`,
		ValidArgs: []string{"bash", "zsh", "fish", "powershell"},
		Args: func(cmd *cobra.Command, argv []string) error {
			if err := oneArg("a shell (bash, zsh, fish or powershell)")(cmd, argv); err != nil {
				return err
			}
			switch argv[0] {
			case "bash", "zsh", "fish", "powershell":
				return nil
			}
			return &usageError{fmt.Errorf("completion: unknown shell %q: want bash, zsh, fish or powershell", argv[0])}
		},
		RunE: func(cmd *cobra.Command, argv []string) error {
			root, out := cmd.Root(), a.env.Stdout
			switch argv[0] {
			case "bash":
				return root.GenBashCompletionV2(out, true)
			case "zsh":
				return root.GenZshCompletion(out)
			case "fish":
				return root.GenFishCompletion(out, true)
			}
			return root.GenPowerShellCompletionWithDesc(out)
		},
	}
}
