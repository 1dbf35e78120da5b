package apitable

import "sync"

// Cloudauth is the cloud-automation login API: package cloudauth and
// fake/cloudauthfake. Its rows link to no documentation: the
// specification keeps the real service's name out (its brand words were
// replaced on purpose), and the package doc of cloudauth is where each
// operation is described. Shared: read it, never change it.
func Cloudauth() *Table { return cloudauthAPI() }

var cloudauthAPI = sync.OnceValue(func() *Table {
	return &Table{
		Name: "cloudauth", Label: "Login API", Root: "",
		Client: "github.com/apitwin/apitwin/cloudauth", Fake: "github.com/apitwin/apitwin/fake/cloudauthfake",
		Endpoints: []Endpoint{
			{"POST", "/csp/gateway/am/api/login", "login", []string{"Login"}, "", ""},
			{"POST", "/csp/gateway/am/api/logout", "logout", []string{"Logout"}, "", ""},
			{"GET", "/csp/gateway/am/api/userinfo", "userInfo", []string{"UserInfo"}, "", ""},
			{"GET", "/csp/gateway/am/api/auth/token-public-key", "publicKey", []string{"PublicKeys", "VerifyToken"}, "", ""},
			{"POST", "/csp/gateway/am/api/auth/api-tokens/authorize", "authorizeAPIToken", []string{"AuthorizeAPIToken"}, "", ""},
		},
	}
})
