package apitable

import "sync"

// Cloudauth is the cloud-automation login API: package cloudauth and
// fake/cloudauthfake. Its docs links are the real identity service's
// pages for the same operations; the real logout and user-info paths
// differ from the specification's (/csp/gateway/am/api/auth/logout,
// /csp/gateway/am/api/loggedin/user). Shared: read it, never change it.
func Cloudauth() *Table { return cloudauthAPI() }

var cloudauthAPI = sync.OnceValue(func() *Table {
	const (
		docs     = "https://developer.broadcom.com/xapis/"
		identity = docs + "vrealize-automation-identity-api/latest/csp/gateway/am/api/"
	)
	return &Table{
		Name: "cloudauth", Label: "CSP API", Root: "",
		Client: "github.com/apitwin/apitwin/cloudauth", Fake: "github.com/apitwin/apitwin/fake/cloudauthfake",
		DocsPrefix: docs,
		Endpoints: []Endpoint{
			{"POST", "/csp/gateway/am/api/login", "login", []string{"Login"}, "", identity + "login/post"},
			{"POST", "/csp/gateway/am/api/logout", "logout", []string{"Logout"}, "", identity + "auth/logout/post"},
			{"GET", "/csp/gateway/am/api/userinfo", "userInfo", []string{"UserInfo"}, "", identity + "loggedin/user/get"},
			{"GET", "/csp/gateway/am/api/auth/token-public-key", "publicKey", []string{"PublicKeys", "VerifyToken"}, "",
				docs + "tcsp-authn/latest/csp/gateway/am/api/auth/token-public-key/get"},
		},
	}
})
