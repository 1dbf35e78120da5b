package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/url"
	"os"
	"os/signal"
	"syscall"

	"github.com/apitwin/apitwin/clock"
	"github.com/apitwin/apitwin/internal/credential"
	"github.com/apitwin/apitwin/mcp/gateway"
)

func main() {
	// Once stopping, the signals' default action is back: a second SIGINT
	// or SIGTERM ends the process at once, drain or not. The default is
	// restored before ctx ends, so before anything (the "shutting down"
	// line, /readyz's 503) shows that the process is stopping: restored by
	// a goroutine woken with the rest once ctx ended, as it was, a second
	// signal sent as soon as the stop showed could still be taken for the
	// first and ignored.
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM)
	ctx, stop := context.WithCancel(context.Background())
	go func() {
		<-signals
		signal.Stop(signals)
		stop()
	}()
	code := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	signal.Stop(signals)
	stop()
	os.Exit(code)
}

// run is the program: it serves until ctx ends and returns the exit code,
// 0 after a clean stop, 1 when serving failed, 2 for a configuration it
// refuses.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	return runOn(ctx, clock.Real(), args, getenv, stdout, stderr)
}

// runOn is run with clk timing timeouts.shutdown_delay, so that tests hold
// the delay open as long as they need it.
func runOn(ctx context.Context, clk clock.Clock, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	s, err := loadSettings(args, getenv, stderr)
	switch {
	case errors.Is(err, flag.ErrHelp):
		return 0
	case err != nil:
		fmt.Fprintf(stderr, "mcp-gateway: invalid configuration:%s\n", indent(err))
		return 2
	}
	log := slog.New(slog.NewJSONHandler(stderr, &slog.HandlerOptions{Level: s.level}))
	// The sockets are bound first: the gateway's canonical URL (the OAuth
	// resource its tokens are issued for), unless configured, is the one
	// it listens on, port 0 resolved.
	l, err := s.listen()
	if err != nil {
		log.Error("cannot listen", "error", err)
		fmt.Fprintf(stderr, "mcp-gateway: %v\n", err)
		return 1
	}
	gatewayURL, metricsURL := s.urls(l)
	if s.Gateway.Resource.URL == "" {
		s.Gateway.Resource.URL = gatewayURL
		if host, _, _ := net.SplitHostPort(l.main.Addr().String()); net.ParseIP(host).IsUnspecified() {
			s.warnings = append(s.warnings, "resource.url is not set and the gateway listens on every address: "+
				"OAuth tokens are accepted only for "+gatewayURL+"; set resource.url to the URL clients use")
		}
	}
	a, err := newApp(s, log)
	if err != nil { // checked in loadSettings already; kept for safety
		l.close()
		fmt.Fprintf(stderr, "mcp-gateway: invalid configuration:%s\n", indent(err))
		return 2
	}
	a.clk = clk
	line := "mcp-gateway listening url=" + gatewayURL
	if metricsURL != "" {
		line += " metrics=" + metricsURL
	}
	fmt.Fprintln(stdout, line)

	signature := s.Gateway.Security.Signature
	switch {
	case signature != "":
	case s.Gateway.Security.SigningSecret != "":
		signature = gateway.SignatureRequired
	default:
		signature = gateway.SignatureOff
	}
	attrs := []any{"url", gatewayURL, "upstream", redactURL(s.Gateway.Upstream), "metrics", metricsURL,
		"signature", string(signature), "tls", s.cert != nil}
	if a.store != nil {
		attrs = append(attrs, "store", "redis", "redis", s.Redis.Address)
	} else {
		attrs = append(attrs, "store", "memory")
	}
	log.Info("serving", attrs...)
	if a.store != nil {
		if err := a.gw.Ready(ctx); err != nil {
			log.Warn("Redis cannot be reached yet; serving from memory until it can", "reason", err.Error())
		}
	} else if s.Redis.Password != "" || s.Redis.DB != 0 || s.Redis.Prefix != "" {
		log.Warn("redis settings without redis.address or redis.cluster: state is kept in this process's memory")
	}
	for _, w := range s.warnings {
		log.Warn(w)
	}
	return a.serve(ctx, l)
}

// redactURL is u without the credentials it may hold: its user
// information, a token given as the user (https://TOKEN@host) as much as
// a password (url.URL.Redacted keeps the user), and credential query
// parameters.
func redactURL(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return "(unparsable)"
	}
	return credential.RedactURL(p)
}
