package credential_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/apitwin/apitwin/cloudauth"
	"github.com/apitwin/apitwin/erp"
	"github.com/apitwin/apitwin/fake/cloudauthfake"
	"github.com/apitwin/apitwin/fake/erpfake"
	"github.com/apitwin/apitwin/fake/sourcehostfake"
	"github.com/apitwin/apitwin/internal/credential"
	"github.com/apitwin/apitwin/mcp"
	"github.com/apitwin/apitwin/orch"
	"github.com/apitwin/apitwin/sourcehost"
)

// sent is a request as it reached the server: its headers (for gRPC, its
// metadata) and query.
type sent struct {
	route  string // method and path
	header http.Header
	query  url.Values
}

// recorder is a loopback server that notes every request, then passes it
// to next (a fake), or answers 404.
type recorder struct {
	mu   sync.Mutex
	reqs []sent
	url  string
}

// fakeHandler is a fake's New, as a handler; the options are fixed, and
// a fake that refuses them is a bug of this test.
func fakeHandler(h http.Handler, err error) http.Handler {
	if err != nil {
		panic(err)
	}
	return h
}

func record(t *testing.T, next http.Handler) *recorder {
	t.Helper()
	rec := &recorder{}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec.mu.Lock()
		rec.reqs = append(rec.reqs, sent{route: r.Method + " " + r.URL.Path, header: r.Header.Clone(), query: r.URL.Query()})
		rec.mu.Unlock()
		if next == nil {
			http.Error(w, `{"message":"404 Not Found"}`, http.StatusNotFound)
			return
		}
		next.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	rec.url = ts.URL
	return rec
}

// take returns the requests noted since the last take.
func (r *recorder) take() []sent {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.reqs
	r.reqs = nil
	return out
}

// onTheList fails for each header or query parameter that the call with
// credentials (with) sent and the same call without them (without) did
// not, or whose value holds one of the secrets, and that the credential
// lists do not name. A case that finds no credential at all fails too: it
// would check nothing.
func onTheList(t *testing.T, client string, with, without []sent, secrets ...string) {
	t.Helper()
	base := map[string]sent{}
	for _, r := range without {
		if _, ok := base[r.route]; !ok {
			base[r.route] = r
		}
	}
	found := 0
	holds := func(vs []string) bool {
		for _, v := range vs {
			for _, s := range secrets {
				if strings.Contains(v, s) {
					return true
				}
			}
		}
		return false
	}
	for _, r := range with {
		b, hasBase := base[r.route]
		for k, vs := range r.header {
			if _, inBase := b.header[k]; (hasBase && !inBase) || holds(vs) {
				found++
				if !credential.IsHeader(k) {
					t.Errorf("%s sends its credential in header %s (%s), which credential's list does not name", client, k, r.route)
				}
			}
		}
		for k, vs := range r.query {
			if _, inBase := b.query[k]; (hasBase && !inBase) || holds(vs) {
				found++
				if !credential.IsQueryParam(k) {
					t.Errorf("%s sends its credential in query parameter %s (%s), which credential's list does not name", client, k, r.route)
				}
			}
		}
	}
	if found == 0 {
		t.Errorf("%s: no credential seen on the wire: the case checks nothing", client)
	}
}

// Every client's credential headers and query parameters, as they go on
// the wire, are on credential's one list: the list the fakes' request
// logs, the control API and printed answers redact by. A client that
// starts sending its credential under a new name fails here until the
// list names it.
func TestEveryClientsCredentialIsOnTheList(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const secret = "credential-under-test-7f3a"

	t.Run("erp", func(t *testing.T) {
		t.Parallel()
		rec := record(t, fakeHandler(erpfake.New(erpfake.WithAdminAPIKey(secret), erpfake.WithAdminPassword(secret))))
		call := func(opts ...erp.Option) []sent {
			c, err := erp.New(rec.url, append(opts, erp.WithoutRetries())...)
			if err != nil {
				t.Fatal(err)
			}
			_, _ = c.GetUser(ctx, 1)
			return rec.take()
		}
		without := call()
		onTheList(t, "erp.WithAPIKey", call(erp.WithAPIKey(secret)), without, secret)
		onTheList(t, "erp.WithBearerAPIKey", call(erp.WithBearerAPIKey(secret)), without, secret)
		onTheList(t, "erp.WithLogin", call(erp.WithLogin("admin", secret)), without, secret) // the session's cookie
	})

	t.Run("sourcehost", func(t *testing.T) {
		t.Parallel()
		rec := record(t, fakeHandler(sourcehostfake.New(sourcehostfake.WithRootToken(secret))))
		call := func(opts ...sourcehost.Option) []sent {
			c, err := sourcehost.New(rec.url+"/api/v4", append(opts, sourcehost.WithoutRetries())...)
			if err != nil {
				t.Fatal(err)
			}
			_, _ = c.ListProjects(ctx, nil)
			return rec.take()
		}
		onTheList(t, "sourcehost.WithToken", call(sourcehost.WithToken(secret)), call(), secret)
	})

	t.Run("mcp", func(t *testing.T) {
		t.Parallel()
		rec := record(t, nil)
		call := func(opts ...mcp.Option) []sent {
			c, err := mcp.New(rec.url, append(opts, mcp.WithoutRetries())...)
			if err != nil {
				t.Fatal(err)
			}
			_, _ = c.ListProjects(ctx, nil)
			return rec.take()
		}
		without := call()
		onTheList(t, "mcp.WithToken", call(mcp.WithToken(secret)), without, secret)
		// The signature holds an HMAC, not the secret: it is found as the
		// header only the signing client sends.
		onTheList(t, "mcp.WithSigningSecret", call(mcp.WithSigningSecret(secret)), without)
	})

	t.Run("orch over HTTP", func(t *testing.T) {
		t.Parallel()
		rec := record(t, nil)
		call := func(opts ...orch.Option) []sent {
			c, err := orch.NewHTTP(rec.url, append(opts, orch.WithoutRetries())...)
			if err != nil {
				t.Fatal(err)
			}
			_, _ = c.DescribeWorkflow(ctx, "wf", "")
			return rec.take()
		}
		onTheList(t, "orch.WithToken (HTTP)", call(orch.WithToken(secret)), call(), secret)
	})

	t.Run("orch over gRPC", func(t *testing.T) {
		t.Parallel()
		var mu sync.Mutex
		var got []sent
		gs := grpc.NewServer(grpc.UnknownServiceHandler(func(_ any, stream grpc.ServerStream) error {
			md, _ := metadata.FromIncomingContext(stream.Context())
			h := http.Header{}
			for k, vs := range md {
				if !strings.HasPrefix(k, ":") {
					h[http.CanonicalHeaderKey(k)] = vs
				}
			}
			method, _ := grpc.Method(stream.Context())
			mu.Lock()
			got = append(got, sent{route: method, header: h})
			mu.Unlock()
			return status.Error(codes.NotFound, "no such workflow")
		}))
		lis, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		go func() { _ = gs.Serve(lis) }()
		t.Cleanup(gs.Stop)
		call := func(opts ...orch.Option) []sent {
			c, err := orch.Dial(lis.Addr().String(), append(opts, orch.WithInsecure(), orch.WithoutRetries())...)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			_, _ = c.DescribeWorkflow(ctx, "wf", "")
			mu.Lock()
			defer mu.Unlock()
			out := got
			got = nil
			return out
		}
		onTheList(t, "orch.WithToken (gRPC)", call(orch.WithToken(secret)), call(), secret)
	})

	t.Run("cloudauth", func(t *testing.T) {
		t.Parallel()
		rec := record(t, fakeHandler(cloudauthfake.New(cloudauthfake.WithAdminPassword(secret))))
		c, err := cloudauth.New(rec.url, cloudauth.WithoutRetries())
		if err != nil {
			t.Fatal(err)
		}
		tok, err := c.Login(ctx, &cloudauth.LoginRequest{Username: "admin", Password: secret})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.UserInfo(ctx, tok); err != nil {
			t.Fatal(err)
		}
		// The login sends the password in its body (cloudauthfake's
		// SecretFields); the token goes in a header.
		onTheList(t, "cloudauth (a token)", rec.take(), nil, tok.Raw())
	})
}

// Where the services read a credential, in a header or a query, the fakes
// accept it, and the lists name it: a fake that starts reading a
// credential somewhere new fails here until the list names it.
func TestEveryCredentialTheFakesAcceptIsOnTheList(t *testing.T) {
	t.Parallel()
	const key = "accepted-credential-4c1d"
	erpSrv := httptest.NewServer(fakeHandler(erpfake.New(erpfake.WithAdminAPIKey(key))))
	t.Cleanup(erpSrv.Close)
	shSrv := httptest.NewServer(fakeHandler(sourcehostfake.New(sourcehostfake.WithRootToken(key))))
	t.Cleanup(shSrv.Close)
	for _, tc := range []struct {
		service, url, header, query, value string
	}{
		{"erp", erpSrv.URL + "/api/index.php/users/1", "ERPAPIKEY", "", key},
		{"erp", erpSrv.URL + "/api/index.php/users/1", "Authorization", "", "Bearer " + key},
		{"erp", erpSrv.URL + "/api/index.php/users/1", "", "ERPAPIKEY", key},
		{"erp", erpSrv.URL + "/api/index.php/users/1", "", "api_key", key},
		{"sourcehost", shSrv.URL + "/api/v4/user", "PRIVATE-TOKEN", "", key},
		{"sourcehost", shSrv.URL + "/api/v4/user", "Authorization", "", "Bearer " + key},
		{"sourcehost", shSrv.URL + "/api/v4/user", "", "private_token", key},
	} {
		u := tc.url
		if tc.query != "" {
			u += "?" + url.Values{tc.query: {tc.value}}.Encode()
		}
		req, _ := http.NewRequest("GET", u, nil)
		if tc.header != "" {
			req.Header.Set(tc.header, tc.value)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("%s refuses its credential in %s%s: %d", tc.service, tc.header, tc.query, resp.StatusCode)
		}
		if tc.header != "" && !credential.IsHeader(tc.header) {
			t.Errorf("%s reads a credential from header %s, which the list does not name", tc.service, tc.header)
		}
		if tc.query != "" && !credential.IsQueryParam(tc.query) {
			t.Errorf("%s reads a credential from query parameter %s, which the list does not name", tc.service, tc.query)
		}
	}
	// Where the real services read one that the fakes do not: GitLab's
	// JOB-TOKEN and job_token, the ERP's DOLAPIKEY header and parameter.
	for _, h := range []string{"JOB-TOKEN", "DOLAPIKEY"} {
		if !credential.IsHeader(h) {
			t.Errorf("header %s is not on the list", h)
		}
	}
	for _, q := range []string{"job_token", "DOLAPIKEY"} {
		if !credential.IsQueryParam(q) {
			t.Errorf("query parameter %s is not on the list", q)
		}
	}
}
