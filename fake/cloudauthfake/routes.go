package cloudauthfake

import (
	"fmt"
	"net/http"
	"strings"
	"sync"

	"github.com/apitwin/apitwin/internal/apitable"
	"github.com/apitwin/apitwin/internal/fakekit"
)

// handlers binds each row of the endpoint table (apitable.Cloudauth, where
// the paths are) to its handler, by the row's Handler name.
var handlers = map[string]func(s *Server, r *http.Request) fakekit.Answer{
	"login":             (*Server).login,
	"logout":            (*Server).logout,
	"userInfo":          (*Server).userInfo,
	"publicKey":         (*Server).publicKey,
	"authorizeAPIToken": (*Server).authorizeAPIToken,
}

// routeTable is every endpoint the fake serves, registered from the
// endpoint table, built once and shared by all instances.
var routeTable = sync.OnceValue(func() *fakekit.Routes[*Server] {
	rt := fakekit.NewRoutes[*Server]()
	err := fakekit.RegisterTable(apitable.Cloudauth(), handlers, func(_ apitable.Endpoint, pattern string, fn func(*Server, *http.Request) fakekit.Answer) {
		rt.Handle(pattern, func(s *Server, w http.ResponseWriter, r *http.Request) { fakekit.WriteAnswer(w, fn(s, r)) })
	})
	if err != nil {
		panic(fmt.Sprintf("cloudauthfake: %v", err)) // the table and the handlers are compiled in; every test catches this
	}
	rt.NotFound(func(s *Server, w http.ResponseWriter, r *http.Request) {
		if allowed := rt.Allowed(r); len(allowed) > 0 {
			a := errorAnswer(r, http.StatusMethodNotAllowed, "Method Not Allowed")
			a.Header.Set("Allow", strings.Join(allowed, ", "))
			fakekit.WriteAnswer(w, a)
			return
		}
		fakekit.WriteAnswer(w, errorAnswer(r, http.StatusNotFound, "Not Found"))
	})
	return rt
})
