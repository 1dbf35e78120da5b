package controlapi

import (
	"embed"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/fake/orchfake"
	"github.com/apitwin/apitwin/internal/bodytext"
	"github.com/apitwin/apitwin/internal/credential"
)

// The console: server-rendered pages that read without JavaScript; a
// little script (static/console.js) refreshes the request log live.

//go:embed templates/*.html static/*
var assets embed.FS

var pages = template.Must(template.New("").Funcs(template.FuncMap{
	"ms":      func(d time.Duration) string { return strconv.FormatFloat(float64(d.Microseconds())/1000, 'f', 1, 64) },
	"rfc3339": func(t time.Time) string { return t.UTC().Format(time.RFC3339) },
	// query and text show a logged request as the API gives it: its
	// credential parameters "[REDACTED]" (the log keeps them so already),
	// a body as text, or base64 when it is not UTF-8.
	"query": func(v url.Values) string { return credential.RedactQuery(v).Encode() },
	"text":  func(b []byte) string { t, _ := bodytext.Encode(b); return t },
}).ParseFS(assets, "templates/*.html"))

func (s *Server) consoleRoutes() {
	s.mux.Handle("GET /static/", http.FileServerFS(assets))
	s.mux.HandleFunc("GET /login", s.loginPage)
	s.mux.HandleFunc("POST /login", s.login)
	s.mux.HandleFunc("POST /logout", s.logout)
	s.mux.HandleFunc("GET /{$}", s.page(func(r *http.Request) (*view, error) { return s.overview(), nil }))
	s.mux.HandleFunc("GET /s/{service}", s.page(s.servicePage))
	s.mux.HandleFunc("POST /console/{action...}", s.form)
}

// view is what a page shows.
type view struct {
	Title     string
	Services  []ServiceInfo
	Clock     ClockState
	Check     string // the forms' check value
	Service   string // the service page's service, "" for the overview
	Tables    []table
	Faults    []control.ActiveFault
	Requests  []control.Request
	Workflows []workflowView
	Message   string // the outcome of the last form, from the redirect
}

// table is a block of a service's state.
type table struct {
	ID      string // the section's id in the page, if it has one
	Title   string
	Columns []string
	Rows    [][]string
}

type workflowView struct {
	orchfake.WorkflowSummary
	History []historyEvent
}

// consoleListed is how many requests and workflows a page shows.
const consoleListed = 100

func (s *Server) page(build func(*http.Request) (*view, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		session := s.session(r)
		if session == "" {
			http.Redirect(w, r, "/login", http.StatusSeeOther)
			return
		}
		v, err := build(r)
		if err != nil {
			http.Error(w, err.Error(), http.StatusNotFound)
			return
		}
		v.Services = s.serviceInfos()
		v.Clock = s.clock.State()
		v.Check = s.formCheck(session)
		v.Message = r.URL.Query().Get("msg")
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Content-Security-Policy", "default-src 'self'; style-src 'self'; script-src 'self'; form-action 'self'; frame-ancestors 'none'")
		if err := pages.ExecuteTemplate(w, "page.html", v); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
		}
	}
}

func (s *Server) overview() *view { return &view{Title: "apitwin-fake"} }

func (s *Server) servicePage(r *http.Request) (*view, error) {
	sv, err := s.service(r)
	if err != nil {
		return nil, err
	}
	v := &view{Title: sv.name, Service: sv.name, Faults: faults(sv)}
	v.Requests = requestQuery{limit: consoleListed}.selectFrom(sv.ctl.Requests())
	slices.Reverse(v.Requests) // newest first, as a log is read
	v.Tables = s.state(sv.name)
	if sv.name == "orch" {
		for _, wf := range s.f.Orch.Workflows("") {
			if len(v.Workflows) == consoleListed {
				break
			}
			run, _ := s.f.Orch.Execution(wf.Namespace, wf.WorkflowID, wf.RunID)
			v.Workflows = append(v.Workflows, workflowView{WorkflowSummary: wf, History: historyJSON(run.History)})
		}
	}
	return v, nil
}

// state is a service's data as tables.
func (s *Server) state(name string) []table {
	f := s.f
	switch name {
	case "erp":
		tp := table{Title: "Third parties", Columns: []string{"id", "name", "email", "town"}}
		for _, t := range f.ERP.Thirdparties() {
			tp.Rows = append(tp.Rows, []string{fmt.Sprint(t.ID), t.Name, t.Email, t.Town})
		}
		pr := table{Title: "Products", Columns: []string{"id", "ref", "label", "price"}}
		for _, p := range f.ERP.Products() {
			pr.Rows = append(pr.Rows, []string{fmt.Sprint(p.ID), p.Ref, p.Label, p.Price.String()})
		}
		inv := table{Title: "Invoices", Columns: []string{"id", "ref", "customer", "status", "paid", "total"}}
		for _, i := range f.ERP.Invoices() {
			inv.Rows = append(inv.Rows, []string{fmt.Sprint(i.ID), i.Ref, fmt.Sprint(i.SocID), fmt.Sprint(i.Status), fmt.Sprint(bool(i.Paid)), i.TotalTTC.String()})
		}
		ord := table{Title: "Orders", Columns: []string{"id", "ref", "customer", "status", "total"}}
		for _, o := range f.ERP.Orders() {
			ord.Rows = append(ord.Rows, []string{fmt.Sprint(o.ID), o.Ref, fmt.Sprint(o.SocID), fmt.Sprint(o.Status), o.TotalTTC.String()})
		}
		us := table{Title: "Users", Columns: []string{"id", "login", "admin", "enabled"}}
		for _, u := range f.ERP.Users() {
			us.Rows = append(us.Rows, []string{fmt.Sprint(u.ID), u.Login, fmt.Sprint(bool(u.Admin)), fmt.Sprint(bool(u.Enabled))})
		}
		return []table{tp, pr, inv, ord, us}
	case "cloudauth":
		return []table{{Title: "Tokens", Columns: []string{"issued", "lifetime", "signing key", "default tenant"},
			Rows: [][]string{{strconv.Itoa(f.CloudAuth.Issued()), f.CloudAuth.TokenLifetime().String(), f.CloudAuth.KeyID(), f.CloudAuth.DefaultTenant()}}}}
	case "orch":
		tq := table{Title: "Task queues", Columns: []string{"namespace", "name", "workflow backlog", "activity backlog", "workflow pollers", "activity pollers"}}
		for _, q := range f.Orch.TaskQueues() {
			tq.Rows = append(tq.Rows, []string{q.Namespace, q.Name, strconv.Itoa(q.WorkflowBacklog), strconv.Itoa(q.ActivityBacklog), strconv.Itoa(q.WorkflowPollers), strconv.Itoa(q.ActivityPollers)})
		}
		sc := table{ID: "schedules", Title: "Schedules", Columns: []string{"namespace", "schedule id", "workflow type", "spec", "overlap", "paused", "actions", "running", "next action"}}
		for _, x := range f.Orch.Schedules("") {
			next := ""
			if x.NextAction != nil {
				next = x.NextAction.UTC().Format(time.RFC3339)
			}
			sc.Rows = append(sc.Rows, []string{x.Namespace, x.ScheduleID, x.WorkflowType, x.Spec, strings.ToLower(x.Overlap),
				strconv.FormatBool(x.Paused), strconv.FormatInt(x.Actions, 10), strconv.Itoa(x.Running), next})
		}
		return []table{tq, sc}
	case "sourcehost":
		pr := table{Title: "Projects", Columns: []string{"id", "path", "visibility", "default branch"}}
		is := table{Title: "Issues", Columns: []string{"project", "iid", "title", "state"}}
		mr := table{Title: "Merge requests", Columns: []string{"project", "iid", "title", "state"}}
		pl := table{Title: "Pipelines", Columns: []string{"project", "id", "ref", "status"}}
		for _, p := range f.SourceHost.Projects() {
			pr.Rows = append(pr.Rows, []string{fmt.Sprint(p.ID), p.PathWithNamespace, string(p.Visibility), p.DefaultBranch})
			for _, i := range f.SourceHost.Issues(p.ID) {
				is.Rows = append(is.Rows, []string{p.PathWithNamespace, fmt.Sprint(i.IID), i.Title, string(i.State)})
			}
			for _, m := range f.SourceHost.MergeRequests(p.ID) {
				mr.Rows = append(mr.Rows, []string{p.PathWithNamespace, fmt.Sprint(m.IID), m.Title, string(m.State)})
			}
			for _, x := range f.SourceHost.Pipelines(p.ID) {
				pl.Rows = append(pl.Rows, []string{p.PathWithNamespace, fmt.Sprint(x.ID), x.Ref, string(x.Status)})
			}
		}
		dl := table{Title: "Webhook deliveries", Columns: []string{"time", "event", "url", "state", "status"}}
		for _, d := range f.SourceHost.Deliveries() {
			dl.Rows = append(dl.Rows, []string{d.Time.UTC().Format(time.RFC3339), d.Event, shownURL(d.URL), d.State, strconv.Itoa(d.Status)})
		}
		return []table{pr, is, mr, pl, dl}
	case "mcp":
		m := f.MCP.Gateway().Metrics()
		return []table{{Title: "Gateway", Columns: []string{"requests", "refused", "calls", "upstream calls", "cache hits", "rate limited"},
			Rows: [][]string{{fmt.Sprint(m.Requests), fmt.Sprint(m.Refused), fmt.Sprint(m.Calls), fmt.Sprint(m.UpstreamCalls), fmt.Sprint(m.CacheHits), fmt.Sprint(m.RateLimited)}}}}
	}
	return nil
}

func (s *Server) loginPage(w http.ResponseWriter, r *http.Request) {
	if tok := r.URL.Query().Get("token"); tok != "" {
		s.loginWith(w, r, tok)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_ = pages.ExecuteTemplate(w, "login.html", nil)
}

func (s *Server) login(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 4<<10)
	s.loginWith(w, r, r.PostFormValue("token"))
}

func (s *Server) loginWith(w http.ResponseWriter, r *http.Request, tok string) {
	if !s.tokenOK(tok) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(http.StatusUnauthorized)
		_ = pages.ExecuteTemplate(w, "login.html", "That is not the token apitwin-fake printed.")
		return
	}
	setSessionCookie(w, r, s.sessions.open())
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

// logout ends the session (its form carries the session's check, as every
// form does) and goes back to the login page.
func (s *Server) logout(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 4<<10)
	if session := s.session(r); session != "" {
		if !s.formCheckOK(session, r.PostFormValue("check")) {
			http.Error(w, "the console's form check is missing: log out from the console's page", http.StatusForbidden)
			return
		}
		s.sessions.close(session)
	}
	setSessionCookie(w, r, "")
	http.Redirect(w, r, "/login", http.StatusSeeOther)
}

// form runs one of the console's forms, through the same handlers as the
// API, and redirects back to the page with the outcome.
func (s *Server) form(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, maxBodyBytes)
	if !s.formCheckOK(s.session(r), r.PostFormValue("check")) {
		http.Error(w, "the console's session or form check is missing: log in again", http.StatusForbidden)
		return
	}
	back := r.PostFormValue("back")
	if !strings.HasPrefix(back, "/") || strings.HasPrefix(back, "//") {
		back = "/"
	}
	msg, err := s.runForm(r, r.PathValue("action"))
	if err != nil {
		msg = "refused: " + err.Error()
	}
	u, _ := url.Parse(back)
	q := u.Query()
	q.Set("msg", msg)
	u.RawQuery = q.Encode()
	http.Redirect(w, r, u.String(), http.StatusSeeOther)
}

func (s *Server) runForm(r *http.Request, action string) (string, error) {
	switch action {
	case "clock/advance":
		d, err := parseAdvance(r.PostFormValue("by"))
		if err != nil {
			return "", err
		}
		st := s.clock.Advance(d)
		return "clock advanced by " + d.String() + " to " + st.Now.UTC().Format(time.RFC3339), nil
	case "clock/freeze":
		s.clock.Freeze()
		return "clock frozen", nil
	case "clock/follow":
		s.clock.Follow()
		return "clock follows the wall clock", nil
	}
	name, op, _ := strings.Cut(action, "/")
	sv, err := s.serviceNamed(name)
	if err != nil {
		return "", err
	}
	switch op {
	case "reset":
		sv.ctl.Reset()
		return name + " reset", nil
	case "faults/clear":
		sv.ctl.ClearFaults()
		return name + ": faults cleared", nil
	case "requests/clear":
		sv.ctl.ResetRequests()
		return name + ": request log cleared", nil
	case "rotate-key":
		return s.consoleRotateKey(name)
	case "erp-settings":
		return s.consoleERPSettings(name, r)
	case "faults":
		route := r.PostFormValue("route")
		f := control.Fault{Code: r.PostFormValue("code"), Message: r.PostFormValue("message"), Body: r.PostFormValue("body"),
			OnClock: r.PostFormValue("on_clock") != "", Drop: r.PostFormValue("drop") != ""}
		if v := strings.TrimSpace(r.PostFormValue("latency")); v != "" {
			d, err := time.ParseDuration(v)
			if err != nil {
				return "", fmt.Errorf("invalid fault: latency %q is not a duration (say \"250ms\" or \"2s\")", v)
			}
			f.Latency = d
		}
		for _, p := range []struct {
			name string
			v    *int
		}{{"status", &f.Status}, {"times", &f.Times}} {
			if v := strings.TrimSpace(r.PostFormValue(p.name)); v != "" {
				n, err := strconv.Atoi(v)
				if err != nil {
					return "", fmt.Errorf("%s %q is not a whole number", p.name, v)
				}
				*p.v = n
			}
		}
		if _, err := s.inject(sv, route, f); err != nil {
			return "", err
		}
		return name + ": fault added on " + routeName(route), nil
	}
	return "", notFound("no console action %q", action)
}

func routeName(route string) string {
	if route == "" {
		return "every request"
	}
	return route
}
