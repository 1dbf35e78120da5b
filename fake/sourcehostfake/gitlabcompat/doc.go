// Package gitlabcompat has no code: its tests run the published GitLab Go
// client (gitlab.com/gitlab-org/api/client-go) against sourcehostfake, so
// that the fake answers what that client expects. They live apart from the
// fake's own tests so that the fake's test binary, which CI also builds for
// fuzzing, does not carry that large client.
package gitlabcompat
