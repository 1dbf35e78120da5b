package main

import (
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"testing"
)

// Without resource.url, the program's canonical URL is the one it listens
// on (port 0 resolved), and the authorization server the upstream's root,
// however the upstream is written: the 401 names that metadata.
func TestResourceDerivedFromListen(t *testing.T) {
	t.Parallel()
	up := upstream(t)
	in := start(t, env(), "-listen", "127.0.0.1:0", "-upstream", up.URL()+"/api/v4/")
	status, hdr, _ := post(t, in.url, "", `{"jsonrpc":"2.0","method":"list_projects","id":1}`)
	m := regexp.MustCompile(`resource_metadata="([^"]+)"`).FindStringSubmatch(hdr.Get("WWW-Authenticate"))
	if status != http.StatusUnauthorized || m == nil || m[1] != in.base+"/.well-known/oauth-protected-resource/mcp" {
		t.Fatalf("%d, WWW-Authenticate %q", status, hdr.Get("WWW-Authenticate"))
	}
	status, _, body := get(t, m[1])
	var md struct {
		Resource             string   `json:"resource"`
		AuthorizationServers []string `json:"authorization_servers"`
	}
	if err := json.Unmarshal([]byte(body), &md); err != nil || status != http.StatusOK {
		t.Fatalf("%d %s", status, body)
	}
	if md.Resource != in.url || len(md.AuthorizationServers) != 1 || md.AuthorizationServers[0] != strings.ToLower(up.URL()) {
		t.Errorf("metadata %+v; want resource %s, authorization server %s", md, in.url, up.URL())
	}
}
