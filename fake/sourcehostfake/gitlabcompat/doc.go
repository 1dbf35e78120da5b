// Package gitlabcompat has no code: its tests run the published GitLab Go
// client (gitlab.com/gitlab-org/api/client-go) against sourcehostfake, so
// that the fake answers what that client expects.
//
// It is a module of its own, nested in apitwin's (as go-github keeps its
// tools): only these tests use that large client, so apitwin's go.mod does
// not require it and a user's module graph does not carry it. Its go.mod
// points github.com/apitwin/apitwin at this checkout (replace ../../..), so
// the tests always run against the code beside them. `go test ./...` at the
// repository's root does not enter a nested module; run the tests here:
//
//	cd fake/sourcehostfake/gitlabcompat && go test ./...
//
// (.ci/run does, with go vet, staticcheck, -race and a go.mod tidiness check.)
package gitlabcompat
