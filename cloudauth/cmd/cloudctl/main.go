// Command cloudctl logs in to a cloud-automation platform's login gateway
// and keeps the token in the operating system's keyring, by named profile.
//
//	cloudctl profile create prod --url https://cloud.example.com --tenant acme
//	cloudctl auth login --username alice      # prompts for the password, hidden
//	printf '%s' "$PW" | cloudctl auth login --username alice --password-stdin   # in scripts
//	cloudctl auth login --with-token < api-token.txt   # an API token: renewed by itself
//	cloudctl auth refresh                     # renew now with the stored API token
//	cloudctl api /csp/gateway/am/api/userinfo --jq .username   # an authenticated call
//	cloudctl auth status --verbose            # checks the token with the server
//	cloudctl auth whoami                      # who the server says you are
//	curl -H "Authorization: Bearer $(cloudctl auth token)" …
//	cloudctl auth switch --user bob           # another account logged in on the same server
//	cloudctl auth logout                      # revokes, then forgets the token
//	cloudctl profile list --output json
//	cloudctl profile update prod --tenant ""  # change some settings of a profile
//	cloudctl profile rename prod production   # its stored token moves with it
//	cloudctl profile delete prod
//	source <(cloudctl completion bash)        # or zsh, fish, powershell
//
// Settings come from flags, then the environment (CLI_URL, CLI_TENANT,
// CLI_USERNAME, CLI_PROFILE, CLI_VERIFY_SSL, CLI_CA_CERT, CLI_TOKEN), then
// the profile, then defaults. Global flags: --profile, --no-verify-ssl,
// --ca-cert, --verbose, --output text|json (auth status, auth whoami, auth
// token, profile list, profile current), --timeout (each call to the
// server, 30 s by default), --version.
//
// Exit status: 0 done; 1 an error (the server refused or could not be
// reached, a file could not be read); 2 a command line that cannot be run
// as written; 4 not authenticated (no token, an expired one, or one the
// server refuses: auth status, auth token, auth whoami); 130 interrupted
// by Ctrl-C (SIGINT) while waiting on the server or at a prompt, with
// nothing stored (a second Ctrl-C ends the process at once).
//
// A login with an API token (--with-token) stores it beside the access
// token, in the same keyring entry ({"access_token","refresh_token"}; a
// password login stores the access token alone, as before), and every
// command that needs the token renews an expired one with it first
// (--verbose says so; no token is ever printed but by auth token).
//
// auth status trusts no token on its own word: it checks the signature
// against the keys the server in use publishes, then asks the server
// (userinfo) whether it still accepts the token, and says so when it could
// not check. auth logout revokes every token in use (the stored one, and
// CLI_TOKEN's) before removing the stored one. On a machine without a
// keyring (no D-Bus session bus) the token goes to a file only the user can
// read, with the warning "Could not store token securely (no keyring
// available: …)". See "cloudctl --help" and package cloudauth.
package main

import (
	"context"
	"os"
	"os/signal"
)

func main() {
	// The first Ctrl-C cancels the command's context: what it waits on
	// ends, it stores nothing more, and cloudctl exits 130. Then SIGINT's
	// default comes back, so a second Ctrl-C ends a process that still
	// hangs.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	context.AfterFunc(ctx, stop)
	code := run(ctx, os.Args[1:], Env{
		Stdin:  os.Stdin,
		Stdout: os.Stdout,
		Stderr: os.Stderr,
		Getenv: os.Getenv,
	})
	stop()
	os.Exit(code)
}
