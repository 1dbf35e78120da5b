module github.com/apitwin/apitwin/fake/sourcehostfake/gitlabcompat

go 1.26.0

require (
	github.com/apitwin/apitwin v0.0.0-00010101000000-000000000000
	gitlab.com/gitlab-org/api/client-go v1.46.0
)

require (
	github.com/google/go-querystring v1.2.0 // indirect
	github.com/hashicorp/go-cleanhttp v0.5.2 // indirect
	github.com/hashicorp/go-retryablehttp v0.7.8 // indirect
	golang.org/x/oauth2 v0.36.0 // indirect
	golang.org/x/time v0.15.0 // indirect
)

replace github.com/apitwin/apitwin => ../../..
