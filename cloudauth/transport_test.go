package cloudauth_test

import (
	"context"
	"crypto/x509"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/apitwin/apitwin/cloudauth"
	"github.com/apitwin/apitwin/fake/cloudauthfake"
	"github.com/apitwin/apitwin/fake/control"
)

var adminLogin = &cloudauth.LoginRequest{Username: "admin", Password: cloudauthfake.AdminPassword}

// TestCertificateNotTrusted: a TLS server whose authority the client does
// not trust fails with the specification's text, and the cause is there
// for errors.As.
func TestCertificateNotTrusted(t *testing.T) {
	t.Parallel()
	srv := startFakeTLS(t)
	c, err := cloudauth.New(srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Login(context.Background(), adminLogin)
	if err == nil || err.Error() != "Authentication failed: SSL: CERTIFICATE_VERIFY_FAILED" {
		t.Fatalf("err %v", err)
	}
	if !errors.Is(err, cloudauth.ErrCertificateVerifyFailed) || errors.Is(err, cloudauth.ErrConnectionTimeout) || errors.Is(err, cloudauth.ErrUnauthorized) {
		t.Fatalf("errors.Is: %v", err)
	}
	var unknown x509.UnknownAuthorityError
	if !errors.As(err, &unknown) {
		t.Fatalf("cause: %v", errors.Unwrap(err))
	}
	if n := len(srv.RequestsTo(cloudauthfake.RouteLogin)); n != 0 {
		t.Fatalf("%d logins reached the server", n)
	}
}

func TestCertificateTrustedThroughCAFile(t *testing.T) {
	t.Parallel()
	srv := startFakeTLS(t)
	c, err := cloudauth.New(srv.URL(), cloudauth.WithCAFile(srv.CACertFile(t)), cloudauth.WithClock(srv.Clock()))
	if err != nil {
		t.Fatal(err)
	}
	tok, err := c.Login(context.Background(), adminLogin)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.VerifyToken(context.Background(), tok.Raw()); err != nil {
		t.Fatal(err)
	}
}

func TestInsecureSkipVerify(t *testing.T) {
	t.Parallel()
	srv := startFakeTLS(t)
	c, err := cloudauth.New(srv.URL(), cloudauth.WithInsecureSkipVerify())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Login(context.Background(), adminLogin); err != nil {
		t.Fatal(err)
	}
}

func TestFakeClientTrustsTLS(t *testing.T) {
	t.Parallel()
	srv := startFakeTLS(t)
	tok, err := srv.Client().Login(context.Background(), adminLogin)
	if err != nil {
		t.Fatal(err)
	}
	if tok.Issuer != srv.URL() {
		t.Fatalf("iss %q, url %q", tok.Issuer, srv.URL())
	}
}

// TestServerDoesNotAnswer: a server that accepts the connection and never
// answers fails with the specification's text once the client's timeout
// passes (a short one here; nothing in the test sleeps or times).
func TestServerDoesNotAnswer(t *testing.T) {
	t.Parallel()
	c, err := cloudauth.New(silentServer(t), cloudauth.WithTimeout(50*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Login(context.Background(), adminLogin)
	if err == nil || err.Error() != "Authentication failed: Connection timeout" {
		t.Fatalf("err %v", err)
	}
	if !errors.Is(err, cloudauth.ErrConnectionTimeout) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("errors.Is: %v", err)
	}
}

// TestServerUnreachable: nothing listens on the port.
func TestServerUnreachable(t *testing.T) {
	t.Parallel()
	c, err := cloudauth.New(closedPort(t), cloudauth.WithoutRetries())
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Login(context.Background(), adminLogin)
	if err == nil || err.Error() != "Authentication failed: Connection timeout" || !errors.Is(err, cloudauth.ErrConnectionTimeout) {
		t.Fatalf("err %v", err)
	}
	var op *net.OpError
	if !errors.As(err, &op) || op.Op != "dial" {
		t.Fatalf("cause %v", errors.Unwrap(err))
	}
	var e *cloudauth.Error
	if !errors.As(err, &e) || e.StatusCode != 0 || e.Detail() == "" {
		t.Fatalf("%#v", e)
	}
}

// TestDroppedConnection: the fake drops the connection without answering.
func TestDroppedConnection(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	srv.InjectFault(cloudauthfake.RouteLogin, control.Fault{Drop: true, Times: 1})
	_, err := srv.Client().Login(context.Background(), adminLogin)
	if !errors.Is(err, cloudauth.ErrConnectionTimeout) {
		t.Fatalf("err %v", err)
	}
	if n := len(srv.RequestsTo(cloudauthfake.RouteLogin)); n != 1 {
		t.Fatalf("a login that may have arrived was sent %d times", n)
	}
}

// TestCancelledIsNotATimeout: a caller that gives up is not told the server
// timed out.
func TestCancelledIsNotATimeout(t *testing.T) {
	t.Parallel()
	c, err := cloudauth.New(silentServer(t))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = c.Login(ctx, adminLogin)
	if err == nil || errors.Is(err, cloudauth.ErrConnectionTimeout) || !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v", err)
	}
	// Said once: "cloudauth: POST <path>: …", not the call twice over.
	if n := strings.Count(err.Error(), cloudauth.LoginPath); n != 2 { // the call, and the URL net/http names
		t.Fatalf("the call is named %d times: %v", n, err)
	}
}
