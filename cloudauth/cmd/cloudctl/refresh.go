package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/apitwin/apitwin/cloudauth"
)

func (a *app) refreshCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "refresh",
		Short: "Renew the stored token now with the stored API token",
		Long: `Renew the access token of the profile in use now, with the API token stored
by "auth login --with-token", and store the new one. cloudctl also renews
an expired token by itself whenever a command needs it; this does it ahead.

A profile logged in with a password has no API token: log in again
instead. An API token the server no longer accepts (revoked or expired)
fails with the server's message.

Exit status: 0 when renewed, 4 when there is nothing to renew with, 1
when the server refused or could not be reached.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return a.refresh(cmd.Context()) },
	}
}

func (a *app) refresh(ctx context.Context) error {
	_, s, err := a.settings()
	if err != nil {
		return err
	}
	key := s.TokenKey()
	c, err := a.loadCredential(key)
	if errors.Is(err, cloudauth.ErrNoToken) {
		fmt.Fprintf(a.env.Stderr, "Not logged in (profile %s). Log in with: cloudctl auth login --with-token\n", key)
		return notAuthenticated
	}
	if err != nil {
		return err
	}
	if c.RefreshToken == "" {
		fmt.Fprintf(a.env.Stderr, "The token of profile %s cannot be renewed: it was not got with an API token. Log in again, or with: cloudctl auth login --with-token\n", key)
		return notAuthenticated
	}
	if s.URL == "" {
		return fmt.Errorf("no server URL: give --url, set %s, or use a profile", cloudauth.EnvURL)
	}
	renewed, err := a.renew(ctx, s, key, c.RefreshToken)
	if err != nil {
		return err
	}
	tok, err := cloudauth.ParseToken(renewed.AccessToken)
	if err != nil {
		return err
	}
	a.printf("Renewed the token of profile %s; it expires at %s", key, describeExpiry(tok, a.env.Clock.Now()))
	return nil
}
