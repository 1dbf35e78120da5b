// Package browsertest has no code: its tests drive apitwin-fake's web
// console (package controlapi), and sourcehostfake's OAuth login page as an
// MCP client's user meets it logging in to the gateway, in headless
// chromium, through chromedp, as a person would.
//
// It is a module of its own, nested in apitwin's (as go-github keeps its
// tools): only this test uses chromedp, so apitwin's go.mod does not
// require it and a user's module graph does not carry it. Its go.mod
// points github.com/apitwin/apitwin at this checkout (replace ../../..),
// so the test always runs against the code beside it; it sees the console
// only through controlapi's exported API and the pages it serves.
// `go test ./...` at the repository's root does not enter a nested module;
// run the test here:
//
//	cd fake/controlapi/browsertest && go test ./...
//
// It needs a chromium (or chrome) on PATH and skips without one, or fails
// under APITWIN_REQUIRE_TOOLS=1, as .ci/run sets; go test -artifacts keeps
// a screenshot of each page. (.ci/run runs it with go vet, staticcheck,
// -race and a go.mod tidiness check.)
package browsertest
