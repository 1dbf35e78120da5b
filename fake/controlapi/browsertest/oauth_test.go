package browsertest_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/modelcontextprotocol/go-sdk/auth"
	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/apitwin/apitwin/fake/sourcehostfake"
	"github.com/apitwin/apitwin/internal/testtools"
	"github.com/apitwin/apitwin/mcp/gateway"
)

// TestOAuthLoginInABrowser runs an MCP client's login to the gateway with
// the user in headless chromium: the official Go SDK's client is refused
// with 401, discovers the authorization server, registers itself, and
// opens the authorization URL in the browser; there the user signs in on
// sourcehostfake's login page (username, and a personal access token as
// the password) and approves; the browser is sent back to the client's
// loopback callback with the code, which the client exchanges (PKCE) for a
// token for the gateway, and tools/call runs with it. A screenshot of the
// page is kept (go test -artifacts).
func TestOAuthLoginInABrowser(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts a browser")
	}
	exe := testtools.Find(t, "chromium", "chromium-browser", "google-chrome", "chrome")
	ctx := t.Context()

	up := sourcehostfake.Start(t)
	if _, err := up.AddUser(sourcehostfake.UserSeed{Username: "jane", Name: "Jane"}); err != nil {
		t.Fatal(err)
	}
	password, err := up.IssueToken("jane", "read_user")
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	mcpURL := "http://" + l.Addr().String() + "/mcp"
	gw, err := gateway.New(gateway.Config{Upstream: up.URL(), Clock: up.Clock(), Resource: gateway.ResourceConfig{URL: mcpURL}})
	if err != nil {
		t.Fatal(err)
	}
	gws := httptest.NewUnstartedServer(gw)
	gws.Listener.Close()
	gws.Listener = l
	gws.Start()
	t.Cleanup(gws.Close)

	// The client's loopback callback, where the browser lands with the
	// code.
	results := make(chan url.Values, 1)
	callback := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case results <- r.URL.Query():
		default:
		}
		fmt.Fprint(w, `<!DOCTYPE html><title>done</title><p id="done">You may close this window.</p>`)
	}))
	t.Cleanup(callback.Close)

	profile, err := os.MkdirTemp("", "apitwin-oauth-browser-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(profile) })
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(exe), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.WindowSize(1000, 800), chromedp.UserDataDir(profile))
	alloc, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	defer cancelAlloc()
	// A bound for a failing test (a browser that never answers), not a
	// measure: every step waits on the page.
	browserCtx, cancel := context.WithTimeout(alloc, 2*time.Minute)
	defer cancel()
	b, cancelBrowser := chromedp.NewContext(browserCtx)
	defer cancelBrowser()

	var consent string
	h, err := auth.NewAuthorizationCodeHandler(&auth.AuthorizationCodeHandlerConfig{
		DynamicClientRegistrationConfig: &auth.DynamicClientRegistrationConfig{Metadata: &oauthex.ClientRegistrationMetadata{
			ClientName: "browser test", RedirectURIs: []string{callback.URL + "/callback"}, TokenEndpointAuthMethod: "none",
			GrantTypes: []string{"authorization_code", "refresh_token"}, ResponseTypes: []string{"code"}}},
		AuthorizationCodeFetcher: func(_ context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
			var png []byte
			if err := chromedp.Run(b,
				chromedp.Navigate(args.URL),
				chromedp.WaitVisible("#username"),
				chromedp.Text("body", &consent),
				chromedp.SendKeys("#username", "jane"),
				chromedp.SendKeys("#password", password),
				chromedp.FullScreenshot(&png, 100),
				chromedp.Click("#authorize"),
				chromedp.WaitVisible("#done"),
			); err != nil {
				return nil, fmt.Errorf("the login page: %w", err)
			}
			_ = os.WriteFile(filepath.Join(t.ArtifactDir(), "oauth-login.png"), png, 0o644)
			q := <-results
			return &auth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state")}, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	client := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "apitwin-browser", Version: "1"}, nil)
	session, err := client.Connect(ctx, &mcpsdk.StreamableClientTransport{Endpoint: mcpURL, OAuthHandler: h}, nil)
	if err != nil {
		t.Fatalf("initialize through the browser's login: %v", err)
	}
	defer session.Close()
	for _, want := range []string{"[Unverified Dynamic Application] browser test", mcpURL, "api"} {
		if !strings.Contains(consent, want) {
			t.Errorf("the consent page does not show %q:\n%s", want, consent)
		}
	}
	res, err := session.CallTool(ctx, &mcpsdk.CallToolParams{Name: "list_projects", Arguments: map[string]any{}})
	if err != nil || res.IsError {
		t.Fatalf("tools/call as jane: %v %+v", err, res)
	}
}
