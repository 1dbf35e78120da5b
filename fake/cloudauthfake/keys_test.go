package cloudauthfake_test

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apitwin/apitwin/clock"
	"github.com/apitwin/apitwin/cloudauth"
	"github.com/apitwin/apitwin/fake/cloudauthfake"
)

// newFake is New, which fails the test on an error.
func newFake(tb testing.TB, opts ...cloudauthfake.Option) *cloudauthfake.Server {
	tb.Helper()
	s, err := cloudauthfake.New(opts...)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// TestProcessKeyIsShared: fakes given no key sign with one key, made once
// for the process, and still keep their own state.
func TestProcessKeyIsShared(t *testing.T) {
	t.Parallel()
	a, b := newFake(t), newFake(t)
	if a.KeyID() != b.KeyID() || !a.PublicKey().Equal(b.PublicKey()) || a.PublicKey().N.BitLen() != cloudauthfake.KeyBits {
		t.Fatalf("key ids %q and %q", a.KeyID(), b.KeyID())
	}
	if a.KeyID() != cloudauthfake.Thumbprint(a.PublicKey()) {
		t.Fatalf("kid %q is not the key's thumbprint", a.KeyID())
	}
	own, err := cloudauthfake.New(cloudauthfake.WithKey(testKey(), "k1"))
	if err != nil {
		t.Fatal(err)
	}
	if own.KeyID() != "k1" || !own.PublicKey().Equal(&testKey().PublicKey) {
		t.Fatal("WithKey")
	}
	if nilKey := newFake(t, cloudauthfake.WithKey(nil, "")); nilKey.KeyID() != a.KeyID() {
		t.Fatal("WithKey(nil) is not the process's key")
	}
	// Rotating one fake's key leaves the others on the process's key.
	if _, err := a.RotateKey(testKey(), "k-rotated"); err != nil {
		t.Fatal(err)
	}
	if a.KeyID() != "k-rotated" || b.KeyID() == "k-rotated" || b.KeyID() != cloudauthfake.Thumbprint(b.PublicKey()) {
		t.Fatalf("after rotating a: a %q, b %q", a.KeyID(), b.KeyID())
	}
}

// keyHelperEnv makes TestProcessKeyHelper, run as its own process, print a
// token of a keyless fake of that process.
const keyHelperEnv = "CLOUDAUTHFAKE_KEY_HELPER"

func TestProcessKeyHelper(t *testing.T) {
	if os.Getenv(keyHelperEnv) != "1" {
		t.Skip("run by TestProcessKeyDiffersAcrossProcesses")
	}
	srv, err := cloudauthfake.New(cloudauthfake.WithIssuer("http://shared.example"))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := srv.IssueToken("", cloudauthfake.AdminUsername)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Printf("\ntoken=%s\n", raw)
}

// TestProcessKeyDiffersAcrossProcesses: the process's key is made at run
// time, never fixed: a token a fake of another process issued does not
// verify here, though it names the same user, tenant and issuer.
func TestProcessKeyDiffersAcrossProcesses(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs the test binary again")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestProcessKeyHelper$", "-test.count=1")
	cmd.Env = append(os.Environ(), keyHelperEnv+"=1")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("helper: %v\n%s", err, out)
	}
	_, rest, ok := strings.Cut(string(out), "\ntoken=")
	raw, _, _ := strings.Cut(rest, "\n")
	if !ok || raw == "" {
		t.Fatalf("helper printed no token:\n%s", out)
	}
	theirs, err := cloudauth.ParseToken(raw)
	if err != nil {
		t.Fatal(err)
	}
	srv := cloudauthfake.Start(t, cloudauthfake.WithIssuer("http://shared.example"))
	if theirs.KeyID == srv.KeyID() {
		t.Fatalf("another process signed with this process's key %q", srv.KeyID())
	}
	c := srv.Client(cloudauth.WithClock(clock.Real()))
	if _, err := c.UserInfo(context.Background(), theirs); !errors.Is(err, cloudauth.ErrUnauthorized) {
		t.Fatalf("userinfo with another process's token: %v", err)
	}
	if _, err := c.VerifyToken(context.Background(), raw); !errors.Is(err, cloudauth.ErrTokenInvalid) {
		t.Fatalf("VerifyToken of another process's token: %v", err)
	}
	// A token of this process's fake verifies, as a control.
	mine, err := srv.IssueToken("", cloudauthfake.AdminUsername)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.VerifyToken(context.Background(), mine); err != nil {
		t.Fatal(err)
	}
}

// TestRotateKey: after a rotation new tokens carry the new key, the key
// document lists both, and tokens of the old key keep working until a
// second rotation drops it.
func TestRotateKey(t *testing.T) {
	t.Parallel()
	srv := start(t)
	c := srv.Client()
	ctx := context.Background()
	before, err := c.Login(ctx, &cloudauth.LoginRequest{Username: "admin", Password: "changeme"})
	if err != nil {
		t.Fatal(err)
	}
	kid, err := srv.RotateKey(nil, "")
	if err != nil {
		t.Fatal(err)
	}
	if kid == "k1" || kid != srv.KeyID() || kid != cloudauthfake.Thumbprint(srv.PublicKey()) || srv.PublicKey().Equal(&testKey().PublicKey) {
		t.Fatalf("rotated to %q (key id %q)", kid, srv.KeyID())
	}
	if other := newFake(t); srv.PublicKey().Equal(other.PublicKey()) {
		t.Fatal("the rotated key is the process's key")
	}
	after, err := c.Login(ctx, &cloudauth.LoginRequest{Username: "admin", Password: "changeme"})
	if err != nil {
		t.Fatal(err)
	}
	if after.KeyID != kid || before.KeyID != "k1" {
		t.Fatalf("kids %q, %q", before.KeyID, after.KeyID)
	}
	ks, err := c.PublicKeys(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if ids := ks.KeyIDs(); len(ids) != 2 {
		t.Fatalf("published %v", ids)
	}
	for _, tok := range []*cloudauth.Token{before, after} {
		if _, err := c.VerifyToken(ctx, tok.Raw()); err != nil {
			t.Fatalf("%s: %v", tok.KeyID, err)
		}
		if _, err := c.UserInfo(ctx, tok); err != nil {
			t.Fatalf("userinfo with %s: %v", tok.KeyID, err)
		}
	}
	if _, err := srv.RotateKey(testKey(), kid); err == nil {
		t.Fatal("a published key id was accepted again")
	}
	if _, err := srv.RotateKey(otherTestKey(), "k3"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.UserInfo(ctx, before); !errors.Is(err, cloudauth.ErrUnauthorized) {
		t.Fatalf("a token of the dropped key: %v", err)
	}
	if _, err := c.UserInfo(ctx, after); err != nil {
		t.Fatalf("a token of the previous key: %v", err)
	}
	srv.Reset()
	if srv.KeyID() != "k3" {
		t.Fatalf("Reset changed the key to %q", srv.KeyID())
	}
}

// otherTestKey is a key besides testKey, made once.
var otherTestKey = sync.OnceValue(func() *rsa.PrivateKey {
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		panic(err)
	}
	return k
})

// BenchmarkStart is issue 18's figure: start a fake, answer one request,
// close it, beside the floor of a bare httptest.NewServer doing the same,
// measured in the same run. The process's key is made before the timer
// starts, as the first fake of a test binary makes it once.
func BenchmarkStart(b *testing.B) {
	newFake(b) // the process's key
	floor := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"keys":[]}`)
	})
	get := func(b *testing.B, url string) {
		resp, err := http.Get(url + cloudauth.PublicKeyPath)
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			b.Fatal(resp.Status)
		}
	}
	b.Run("floor=httptest", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			ts := httptest.NewServer(floor)
			get(b, ts.URL)
			ts.Close()
		}
	})
	b.Run("cloudauthfake", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			srv := cloudauthfake.Start(b)
			get(b, srv.URL())
			srv.Close()
		}
	})
	// Both in turn, so that the machine's load falls on both alike: the
	// ratio is the figure to read.
	b.Run("interleaved", func(b *testing.B) {
		var floorTime, fakeTime time.Duration
		for b.Loop() {
			t := time.Now()
			ts := httptest.NewServer(floor)
			get(b, ts.URL)
			ts.Close()
			floorTime += time.Since(t)
			t = time.Now()
			srv := cloudauthfake.Start(b)
			get(b, srv.URL())
			srv.Close()
			fakeTime += time.Since(t)
		}
		b.ReportMetric(float64(floorTime.Nanoseconds())/float64(b.N), "floor-ns/op")
		b.ReportMetric(float64(fakeTime.Nanoseconds())/float64(b.N), "fake-ns/op")
		b.ReportMetric(float64(fakeTime)/float64(floorTime), "x-floor")
	})
}
