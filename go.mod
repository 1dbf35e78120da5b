module github.com/apitwin/apitwin

go 1.24

require (
	github.com/google/go-cmp v0.7.0
	github.com/hashicorp/go-cleanhttp v0.5.2
	github.com/hashicorp/go-retryablehttp v0.7.8
)

require github.com/google/go-querystring v1.2.0
