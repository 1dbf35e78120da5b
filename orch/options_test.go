package orch_test

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"io"
	"log"
	"net"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/apitwin/apitwin/fake/orchfake"
	"github.com/apitwin/apitwin/internal/orchwire"
	"github.com/apitwin/apitwin/orch"
)

func TestOptionsValidate(t *testing.T) {
	t.Parallel()
	bad := map[string][]orch.Option{
		"empty token":      {orch.WithToken(" ")},
		"token line break": {orch.WithToken("abc\ndef")},
		"empty namespace":  {orch.WithNamespace("")},
		"nil TLS config":   {orch.WithTLSConfig(nil)},
		"API version":      {orch.WithAPIVersion("v3")},
		"missing CA file":  {orch.WithCAFile(filepath.Join(t.TempDir(), "none.pem"))},
		"TLS and CA file":  {orch.WithTLSConfig(&tls.Config{}), orch.WithInsecureSkipVerify()},
		"call timeout":     {orch.WithCallTimeout(0)},
		"empty identity":   {orch.WithIdentity("")},
		"nil clock":        {orch.WithClock(nil)},
		"negative retries": {orch.WithRetry(orch.RetryPolicy{MaxRetries: -1})},
		"empty user agent": {orch.WithUserAgent("")},
	}
	for name, opts := range bad {
		if _, err := orch.NewHTTP("http://127.0.0.1:1", opts...); err == nil {
			t.Errorf("NewHTTP accepted %s", name)
		}
		if _, err := orch.Dial("127.0.0.1:1", opts...); err == nil {
			t.Errorf("Dial accepted %s", name)
		}
	}
	for _, u := range []string{"", "ftp://x", "http://", "http://h/?q=1"} {
		if _, err := orch.NewHTTP(u); err == nil {
			t.Errorf("NewHTTP accepted base URL %q", u)
		}
	}
	if _, err := orch.Dial(""); err == nil {
		t.Error("Dial accepted an empty target")
	}
	if _, err := orch.NewFromConn(nil); err == nil {
		t.Error("NewFromConn accepted nil")
	}
	c, err := orch.NewHTTP("http://127.0.0.1:1/api/v1/", orch.WithToken("tok-123456"), orch.WithNamespace("ns"), orch.WithIdentity("me"))
	if err != nil {
		t.Fatal(err)
	}
	if s := c.String(); strings.Contains(s, "tok-123456") || !strings.Contains(s, "http://127.0.0.1:1") || strings.Contains(s, "/api/v1") {
		t.Errorf("String: %s", s)
	}
	if c.Namespace() != "ns" || c.Identity() != "me" || c.WithNamespace("other").Namespace() != "other" {
		t.Error("namespace or identity not kept")
	}
}

// TestTLS: verification is on by default over both transports; a CA file or
// a TLS config makes the server trusted; the insecure switch turns it off.
func TestTLS(t *testing.T) {
	t.Parallel()
	srv, err := orchfake.New()
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewUnstartedServer(srv.Handler())
	hs.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshakes are the point
	hs.StartTLS()
	t.Cleanup(hs.Close)
	certPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: hs.Certificate().Raw})
	caFile := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(caFile, certPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(hs.Certificate())

	// The same certificate on a gRPC listener.
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gs := grpc.NewServer(grpc.Creds(credentials.NewServerTLSFromCert(&hs.TLS.Certificates[0])),
		grpc.UnknownServiceHandler(func(_ any, st grpc.ServerStream) error { // answers every call empty
			full, _ := grpc.MethodFromServerStream(st)
			rule, _ := orchwire.RuleFor(full)
			if err := st.RecvMsg(dynamicpb.NewMessage(rule.Method.Input())); err != nil {
				return err
			}
			return st.SendMsg(dynamicpb.NewMessage(rule.Method.Output()))
		}))
	go func() { _ = gs.Serve(lis) }()
	t.Cleanup(gs.Stop)

	clients := func(opts ...orch.Option) map[string]*orch.Client {
		h, err := orch.NewHTTP(hs.URL, opts...)
		if err != nil {
			t.Fatal(err)
		}
		g, err := orch.Dial(lis.Addr().String(), opts...)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = g.Close() })
		return map[string]*orch.Client{"http": h, "grpc": g}
	}
	for name, c := range clients() {
		if _, err := c.DescribeCluster(t.Context()); !errors.Is(err, orch.ErrUnavailable) || !strings.Contains(err.Error(), "certificate") {
			t.Errorf("%s: untrusted server: %v", name, err)
		}
	}
	for _, opts := range [][]orch.Option{{orch.WithCAFile(caFile)}, {orch.WithTLSConfig(&tls.Config{RootCAs: pool})}, {orch.WithInsecureSkipVerify()}} {
		for name, c := range clients(append(opts, orch.WithoutRetries())...) {
			if _, err := c.DescribeCluster(t.Context()); err != nil {
				t.Errorf("%s: %v", name, err)
			}
		}
	}
}
