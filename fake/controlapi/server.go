// Package controlapi is apitwin-fake's control API and web console: every
// control the Go fakes offer (reset, seed, faults, the clock, the request
// log, webhook deliveries, orch's workflows and task queues) as JSON over
// HTTP, described by an OpenAPI document at /openapi.json, and a console of
// server-rendered pages over the same calls, for test suites and people
// that do not write Go.
//
// The control API calls the same methods a Go test calls on the fakes
// (control.Controls and each fake's accessors): there is one code path,
// and one type per value, which writes its own JSON (control.ActiveFault,
// control.Request, sourcehostfake.Delivery, orchfake.WorkflowSummary, …).
// [Client] is its Go client, for a program that runs apitwin-fake as a
// process.
//
// Every request needs the server's token: "Authorization: Bearer <token>"
// for the API; the console's pages take it once (GET /login?token=…, or the
// login form) and open a session: a random id (never the token) in an
// HttpOnly, SameSite=Strict cookie, Secure when served over TLS, which
// also lets the pages' script read the API (GET only: changes through the
// API need the bearer token, and the console's forms carry a check value
// of the session). A session ends after SessionLifetime (12 hours, on the
// wall clock), at the console's "log out" (POST /logout), or when
// MaxSessions (100) newer ones are open.
//
// Nothing the API answers or the console shows holds a secret: the request
// logs keep none (credential headers and parameters, and each service's
// secret body fields, are "[REDACTED]" in them; see control.Request), and a
// webhook's URL is shown without its password.
//
// Bounds: a seed body is at most 8 MiB, any other body 2 MiB; a fault's
// latency at most MaxFaultLatency, its count MaxFaultTimes, its body
// MaxFaultBody; one clock advance at most MaxAdvance; a request log
// listing at most MaxRequestsListed entries. A request past a bound, or naming an
// unknown service, route or duration, is refused with 400 (404 for an
// unknown service) and {"error": "..."} naming the problem, and changes
// nothing.
package controlapi

import (
	"bytes"
	"crypto/subtle"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/apitwin/apitwin/fake"
	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/fake/sourcehostfake"
	"github.com/apitwin/apitwin/internal/credential"
)

// Body bounds of the control API.
const (
	maxSeedBytes = 8 << 20
	maxBodyBytes = 2 << 20
)

// MinTokenLength is the shortest token New accepts.
const MinTokenLength = 16

// Server serves the control API and the console for one set of fakes.
type Server struct {
	f        *fake.Fakes
	clock    *WallClock
	token    string
	services []*service
	mux      *http.ServeMux
	sessions *sessions // the console's logins
	save     saver     // POST /api/snapshot's (SetSnapshot)
}

// service is one fake as the control API reaches it.
type service struct {
	name string
	ctl  control.Controls
	url  func() string
	grpc func() string
}

// New returns the control API and console of f. clk drives f's clock
// (NewWallClock(f.Clock, …)); token is what every request must present.
func New(f *fake.Fakes, clk *WallClock, token string) (*Server, error) {
	if f == nil || clk == nil {
		return nil, errors.New("controlapi: New needs the fakes and their WallClock")
	}
	if len(token) < MinTokenLength {
		return nil, fmt.Errorf("controlapi: the token must be at least %d characters", MinTokenLength)
	}
	s := &Server{f: f, clock: clk, token: token, mux: http.NewServeMux(), sessions: newSessions()}
	s.services = []*service{
		{name: "erp", ctl: f.ERP, url: f.ERP.URL},
		{name: "cloudauth", ctl: f.CloudAuth, url: f.CloudAuth.URL},
		{name: "orch", ctl: f.Orch, url: f.Orch.URL, grpc: f.Orch.GRPCAddr},
		{name: "sourcehost", ctl: f.SourceHost, url: func() string { return f.SourceHost.URL() + "/api/v4" }},
		{name: "mcp", ctl: f.MCP, url: func() string { return f.MCP.URL() + "/mcp" }},
	}
	s.routes()
	return s, nil
}

// String names the server without its token.
func (s *Server) String() string { return "controlapi.Server" }

// GoString is String, so that %#v shows no token either.
func (s *Server) GoString() string { return s.String() }

// apiRoutes are the control API's operations: what routes registers and
// the OpenAPI document describes (a test holds them equal).
var apiRoutes = []string{
	"GET /api/services",
	"POST /api/seed",
	"POST /api/{service}/reset",
	"GET /api/{service}/faults",
	"POST /api/{service}/faults",
	"DELETE /api/{service}/faults",
	"GET /api/{service}/requests",
	"DELETE /api/{service}/requests",
	"GET /api/clock",
	"POST /api/clock/advance",
	"POST /api/clock/set",
	"POST /api/clock/freeze",
	"POST /api/clock/follow",
	"GET /api/sourcehost/deliveries",
	"GET /api/orch/workflows",
	"GET /api/orch/history",
	"GET /api/orch/task-queues",
	"POST /api/snapshot",
	"POST /api/cloudauth/rotate-key",
	"POST /api/cloudauth/api-tokens",
	"POST /api/cloudauth/api-tokens/revoke",
	"GET /api/erp/settings",
	"POST /api/erp/settings",
	"POST /api/erp/api-keys",
	"POST /api/erp/api-keys/revoke",
}

// Operations lists the control API's operations ("POST /api/{service}/faults"),
// as its OpenAPI document describes them.
func Operations() []string { return slices.Clone(apiRoutes) }

func (s *Server) routes() {
	api := map[string]func(http.ResponseWriter, *http.Request) (any, error){
		"GET /api/services":              s.listServices,
		"POST /api/seed":                 s.seed,
		"POST /api/{service}/reset":      s.reset,
		"GET /api/{service}/faults":      s.listFaults,
		"POST /api/{service}/faults":     s.addFault,
		"DELETE /api/{service}/faults":   s.clearFaults,
		"GET /api/{service}/requests":    s.listRequests,
		"DELETE /api/{service}/requests": s.clearRequests,
		"GET /api/clock":                 func(http.ResponseWriter, *http.Request) (any, error) { return s.clock.State(), nil },
		"POST /api/clock/advance":        s.advance,
		"POST /api/clock/set":            s.setClock,
		"POST /api/clock/freeze":         func(http.ResponseWriter, *http.Request) (any, error) { return s.clock.Freeze(), nil },
		"POST /api/clock/follow":         func(http.ResponseWriter, *http.Request) (any, error) { return s.clock.Follow(), nil },
		"GET /api/sourcehost/deliveries": s.deliveries,
		"GET /api/orch/workflows":        s.workflows,
		"GET /api/orch/history":          s.history,
		"GET /api/orch/task-queues":      s.taskQueues,
		"POST /api/snapshot":             s.snapshot,
		// cloudauth.go
		"POST /api/cloudauth/rotate-key":        s.rotateCloudauthKey,
		"POST /api/cloudauth/api-tokens":        s.issueAPIToken,
		"POST /api/cloudauth/api-tokens/revoke": s.revokeAPIToken,
		// erp.go
		"GET /api/erp/settings":         s.erpSettings,
		"POST /api/erp/settings":        s.setERPSettings,
		"POST /api/erp/api-keys":        s.issueERPAPIKey,
		"POST /api/erp/api-keys/revoke": s.revokeERPAPIKey,
	}
	for _, pattern := range apiRoutes {
		h := api[pattern]
		s.mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
			if !s.apiAllowed(r) {
				w.Header().Set("WWW-Authenticate", `Bearer realm="apitwin-fake control"`)
				writeError(w, http.StatusUnauthorized, "Authorization: Bearer <token> is required (the token apitwin-fake printed on its control line)")
				return
			}
			out, err := h(w, r)
			if err != nil {
				var he *httpError
				if errors.As(err, &he) {
					writeError(w, he.status, he.msg)
					return
				}
				writeError(w, http.StatusBadRequest, err.Error())
				return
			}
			if out == nil {
				w.WriteHeader(http.StatusNoContent)
				return
			}
			writeJSON(w, http.StatusOK, out)
		})
	}
	s.mux.HandleFunc("/api/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, "no such control operation: "+r.Method+" "+r.URL.Path+" (see /openapi.json)")
	})
	s.mux.HandleFunc("GET /openapi.json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write(openAPI)
	})
	s.consoleRoutes()
}

// ServeHTTP serves the control API and the console.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Cache-Control", "no-store")
	s.mux.ServeHTTP(w, r)
}

//go:embed openapi.json
var openAPI []byte

// httpError is a refusal with its own status.
type httpError struct {
	status int
	msg    string
}

func (e *httpError) Error() string { return e.msg }

func notFound(format string, args ...any) error {
	return &httpError{http.StatusNotFound, fmt.Sprintf(format, args...)}
}

// tokenOK compares a presented token with the server's in constant time.
func (s *Server) tokenOK(presented string) bool {
	return subtle.ConstantTimeCompare([]byte(presented), []byte(s.token)) == 1
}

// apiAllowed: the bearer token for everything; a console session for
// reads only.
func (s *Server) apiAllowed(r *http.Request) bool {
	if tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
		return s.tokenOK(strings.TrimSpace(tok))
	}
	return r.Method == http.MethodGet && s.session(r) != ""
}

func (s *Server) service(r *http.Request) (*service, error) {
	return s.serviceNamed(r.PathValue("service"))
}

func (s *Server) serviceNamed(name string) (*service, error) {
	for _, sv := range s.services {
		if sv.name == name {
			return sv, nil
		}
	}
	return nil, notFound("no service %q: the services are erp, cloudauth, orch, sourcehost and mcp", name)
}

func (s *Server) listServices(http.ResponseWriter, *http.Request) (any, error) {
	return s.serviceInfos(), nil
}

func (s *Server) serviceInfos() []ServiceInfo {
	out := make([]ServiceInfo, 0, len(s.services))
	for _, sv := range s.services {
		info := ServiceInfo{Name: sv.name, URL: sv.url(), Requests: sv.ctl.RequestCount(), Faults: len(sv.ctl.Faults())}
		if sv.grpc != nil {
			info.GRPC = sv.grpc()
		}
		out = append(out, info)
	}
	return out
}

func (s *Server) seed(w http.ResponseWriter, r *http.Request) (any, error) {
	name := "seed.json"
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	switch mt {
	case "application/json":
	case "application/yaml", "application/x-yaml", "text/yaml":
		name = "seed.yaml"
	default:
		return nil, &httpError{http.StatusUnsupportedMediaType, "a seed is application/json or application/yaml, in the format of --seed files"}
	}
	data, err := readBody(w, r, maxSeedBytes)
	if err != nil {
		return nil, err
	}
	seed, err := fake.ParseSeed(data, name)
	if err != nil {
		return nil, err
	}
	if err := s.f.Load(seed); err != nil {
		return nil, err
	}
	return nil, nil
}

func (s *Server) reset(_ http.ResponseWriter, r *http.Request) (any, error) {
	sv, err := s.service(r)
	if err != nil {
		return nil, err
	}
	sv.ctl.Reset()
	return nil, nil
}

func (s *Server) listFaults(_ http.ResponseWriter, r *http.Request) (any, error) {
	sv, err := s.service(r)
	if err != nil {
		return nil, err
	}
	return faults(sv), nil
}

// faults are sv's faults in force, never null in JSON.
func faults(sv *service) []control.ActiveFault {
	if f := sv.ctl.Faults(); f != nil {
		return f
	}
	return []control.ActiveFault{}
}

func (s *Server) addFault(w http.ResponseWriter, r *http.Request) (any, error) {
	sv, err := s.service(r)
	if err != nil {
		return nil, err
	}
	data, err := readJSON(w, r)
	if err != nil {
		return nil, err
	}
	var given struct {
		Remaining json.RawMessage `json:"remaining"`
	}
	if json.Unmarshal(data, &given) == nil && given.Remaining != nil {
		return nil, errors.New("invalid fault: remaining is set by the fake, not by the caller (use times)")
	}
	var af control.ActiveFault
	if err := decodeOne(data, &af); err != nil {
		return nil, err
	}
	return s.inject(sv, af.Route, af.Fault)
}

// inject adds f on route to sv's faults and returns the faults in force.
func (s *Server) inject(sv *service, route string, f control.Fault) (any, error) {
	if err := checkFault(f); err != nil {
		return nil, err
	}
	if err := sv.ctl.InjectFault(route, f); err != nil {
		return nil, err
	}
	return faults(sv), nil
}

func (s *Server) clearFaults(_ http.ResponseWriter, r *http.Request) (any, error) {
	sv, err := s.service(r)
	if err != nil {
		return nil, err
	}
	sv.ctl.ClearFaults()
	return nil, nil
}

// requestQuery is a request log listing's filter, read from a query.
type requestQuery struct {
	route         string
	byRoute       bool // route given ("" is a route: the unrouted requests)
	method, path  string
	status, limit int
}

func parseRequestQuery(r *http.Request) (requestQuery, error) {
	q := r.URL.Query()
	_, byRoute := q["route"]
	rq := requestQuery{route: q.Get("route"), byRoute: byRoute, method: q.Get("method"), path: q.Get("path"), limit: MaxRequestsListed}
	for _, p := range []struct {
		name     string
		v        *int
		min, max int
	}{{"status", &rq.status, 100, 999}, {"limit", &rq.limit, 1, MaxRequestsListed}} {
		if v := q.Get(p.name); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < p.min || n > p.max {
				return rq, fmt.Errorf("%s %q must be a whole number from %d to %d", p.name, v, p.min, p.max)
			}
			*p.v = n
		}
	}
	return rq, nil
}

func (q requestQuery) match(r control.Request) bool {
	return (!q.byRoute || r.Route == q.route) &&
		(q.method == "" || strings.EqualFold(r.Method, q.method)) &&
		strings.HasPrefix(r.Path, q.path) &&
		(q.status == 0 || r.Status == q.status)
}

// selectFrom returns the newest limit matches, oldest first (never null
// in JSON).
func (q requestQuery) selectFrom(all []control.Request) []control.Request {
	kept := []control.Request{}
	for i := len(all) - 1; i >= 0 && len(kept) < q.limit; i-- {
		if q.match(all[i]) {
			kept = append(kept, all[i])
		}
	}
	slices.Reverse(kept)
	return kept
}

func (s *Server) listRequests(_ http.ResponseWriter, r *http.Request) (any, error) {
	sv, err := s.service(r)
	if err != nil {
		return nil, err
	}
	q, err := parseRequestQuery(r)
	if err != nil {
		return nil, err
	}
	return q.selectFrom(sv.ctl.Requests()), nil
}

func (s *Server) clearRequests(_ http.ResponseWriter, r *http.Request) (any, error) {
	sv, err := s.service(r)
	if err != nil {
		return nil, err
	}
	sv.ctl.ResetRequests()
	return nil, nil
}

// parseAdvance reads a positive duration of at most MaxAdvance.
func parseAdvance(v string) (time.Duration, error) {
	d, err := time.ParseDuration(v)
	if err != nil {
		return 0, fmt.Errorf("by %q is not a duration (say \"90s\", \"1h\" or \"24h\")", v)
	}
	if d <= 0 || d > MaxAdvance {
		return 0, fmt.Errorf("by %s must be more than 0 and at most %s", d, MaxAdvance)
	}
	return d, nil
}

func (s *Server) advance(w http.ResponseWriter, r *http.Request) (any, error) {
	var in struct {
		By string `json:"by"`
	}
	if err := decodeJSON(w, r, &in); err != nil {
		return nil, err
	}
	d, err := parseAdvance(in.By)
	if err != nil {
		return nil, err
	}
	return s.clock.Advance(d), nil
}

func (s *Server) setClock(w http.ResponseWriter, r *http.Request) (any, error) {
	var in struct {
		Time string `json:"time"`
	}
	if err := decodeJSON(w, r, &in); err != nil {
		return nil, err
	}
	t, err := time.Parse(time.RFC3339Nano, in.Time)
	if err != nil {
		return nil, fmt.Errorf("time %q is not an RFC 3339 time (say \"2026-11-25T09:00:00Z\")", in.Time)
	}
	if now := s.clock.State().Now; t.After(now.Add(MaxAdvance)) {
		return nil, fmt.Errorf("time %s is more than %s ahead of the clock", in.Time, MaxAdvance)
	}
	return s.clock.Set(t), nil
}

func (s *Server) deliveries(http.ResponseWriter, *http.Request) (any, error) {
	out := s.f.SourceHost.Deliveries() // each writes its JSON without the URL's password
	if out == nil {
		out = []sourcehostfake.Delivery{}
	}
	return out, nil
}

func (s *Server) workflows(_ http.ResponseWriter, r *http.Request) (any, error) {
	return s.f.Orch.Workflows(r.URL.Query().Get("namespace")), nil
}

func (s *Server) history(_ http.ResponseWriter, r *http.Request) (any, error) {
	q := r.URL.Query()
	run, ok := s.f.Orch.Execution(q.Get("namespace"), q.Get("workflow_id"), q.Get("run_id"))
	if !ok {
		return nil, notFound("no workflow run %q / %q in namespace %q", q.Get("workflow_id"), q.Get("run_id"), q.Get("namespace"))
	}
	return historyJSON(run.History), nil
}

func (s *Server) taskQueues(http.ResponseWriter, *http.Request) (any, error) {
	return s.f.Orch.TaskQueues(), nil
}

// shownURL is a URL someone gave (a webhook's) as the API and the console
// show it: without its userinfo or credential query parameters
// (credential.RedactURL).
func shownURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(a URL that does not parse)"
	}
	return credential.RedactURL(u)
}

// readBody reads at most limit bytes of the body, or refuses it.
func readBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, error) {
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return nil, &httpError{http.StatusRequestEntityTooLarge, fmt.Sprintf("the body is larger than %d bytes", limit)}
		}
		return nil, errors.New("reading the body failed")
	}
	return data, nil
}

// decodeJSON reads one JSON object into v; unknown fields are refused.
func decodeJSON(w http.ResponseWriter, r *http.Request, v any) error {
	data, err := readJSON(w, r)
	if err != nil {
		return err
	}
	return decodeOne(data, v)
}

// readJSON reads a JSON body, of at most maxBodyBytes.
func readJSON(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/json" {
		return nil, &httpError{http.StatusUnsupportedMediaType, "the body must be application/json"}
	}
	return readBody(w, r, maxBodyBytes)
}

// decodeOne decodes data, one JSON object, into v; unknown fields are
// refused.
func decodeOne(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("the body is not the expected JSON object: %v", err)
	}
	if dec.More() {
		return errors.New("the body holds more than one JSON value")
	}
	return nil
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
}

func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, &APIError{Status: status, Message: msg})
}
