package sourcehostfake

import (
	"github.com/apitwin/apitwin/internal/fakekit"
	"github.com/apitwin/apitwin/internal/version"
)

// APIVersion is the version GET /version reports: the release of the real
// service whose API v4 the fake follows, so that clients that check a
// server's version before they use a feature (the published Go client's
// Version.GetVersion, python-gitlab's version()) take the fake for a
// server that has it. The revision names the fake and its module's
// version.
const APIVersion = "17.11.0"

// versionJSON is GET /version's answer, in the fields of the real
// service's metadata, which it mirrors (kas is the agent server, which
// the fake does not run).
type versionJSON struct {
	Version    string  `json:"version"`
	Revision   string  `json:"revision"`
	KAS        kasJSON `json:"kas"`
	Enterprise bool    `json:"enterprise"`
}

type kasJSON struct {
	Enabled             bool    `json:"enabled"`
	ExternalURL         *string `json:"externalUrl"`
	ExternalK8sProxyURL *string `json:"externalK8sProxyUrl"`
	Version             *string `json:"version"`
}

// version answers GET /version, to any signed-in caller whose token reads
// the API or the user (the real service's scopes for it).
func (c *call) version() fakekit.Answer {
	return ok(versionJSON{Version: APIVersion, Revision: "apitwin-" + version.Version})
}
