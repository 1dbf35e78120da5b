package main

import (
	"bufio"
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/apitwin/apitwin/internal/fakecmd"
	"github.com/apitwin/apitwin/sourcehost"
)

// --sourcehost-ssh-port names the port the source-hosting fake's projects
// say SSH is on: ssh_url_to_repo takes GitLab's ssh:// form for a port
// other than 22.
func TestSourceHostSSHPortFlag(t *testing.T) {
	t.Parallel()
	args := []string{"--erp-port", "0", "--cloudauth-port", "0", "--orch-grpc-port", "0", "--orch-http-port", "0",
		"--sourcehost-port", "0", "--mcp-port", "0", "--control-port", "-1", "--frozen-clock", "--sourcehost-ssh-port", "2222"}
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- fakecmd.Run(ctx, args, pw, io.Discard, func(string) string { return "" })
		pw.Close()
	}()
	line := map[string]string{}
	lines := bufio.NewScanner(pr)
	for lines.Scan() && lines.Text() != "ready" {
		if f := strings.Fields(lines.Text()); len(f) > 0 && f[0] == "sourcehost" {
			for _, kv := range f[1:] {
				k, v, _ := strings.Cut(kv, "=")
				line[k] = v
			}
		}
	}
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	defer func() {
		cancel()
		if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
			t.Fatalf("run: %v", err)
		}
	}()
	c, err := sourcehost.New(line["url"], sourcehost.WithToken(line["token"]))
	if err != nil {
		t.Fatal(err)
	}
	p, err := c.CreateProject(ctx, &sourcehost.CreateProjectRequest{Name: "shop"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(p.SSHURLToRepo, "ssh://git@") || !strings.HasSuffix(p.SSHURLToRepo, ":2222/"+p.PathWithNamespace+".git") {
		t.Fatalf("ssh_url_to_repo %q", p.SSHURLToRepo)
	}
}
