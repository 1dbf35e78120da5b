// Command cloudctl logs in to a cloud-automation platform's login gateway
// and keeps the token in the operating system's keyring, by named profile.
//
//	cloudctl profile create prod --url https://cloud.example.com --tenant vsphere.local
//	cloudctl auth login --username alice      # prompts for the password, hidden
//	cloudctl auth status --verbose            # exit status 0 only when logged in
//	cloudctl auth logout
//
// Settings come from flags, then the environment (CLI_URL, CLI_TENANT,
// CLI_USERNAME, CLI_PROFILE, CLI_VERIFY_SSL, CLI_CA_CERT, CLI_TOKEN), then
// the profile, then defaults. See "cloudctl --help" and package cloudauth.
package main

import (
	"context"
	"os"
	"os/signal"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], Env{
		Stdin:  os.Stdin,
		Stdout: os.Stdout,
		Stderr: os.Stderr,
		Getenv: os.Getenv,
	})
	stop()
	os.Exit(code)
}
