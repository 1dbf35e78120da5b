package sourcehost

import (
	"context"
	"net/http"
)

// Version is what a server says of its release.
type Version struct {
	// Version is the release, "17.11.0" (GitLab adds "-ee" to its
	// enterprise edition's, "-pre" to a development build's).
	Version string `json:"version"`
	// Revision is the build's revision, a commit id on GitLab.
	Revision string `json:"revision"`
	// Enterprise is true on an enterprise edition.
	Enterprise bool `json:"enterprise"`
}

// Version returns the server's release, for any signed-in token that
// reads the API or the user.
//
// GitLab API: [GET /version]
//
// [GET /version]: https://docs.gitlab.com/api/version/
func (c *Client) Version(ctx context.Context) (*Version, error) {
	return do[Version](ctx, c, http.MethodGet, "/version", nil, nil)
}
