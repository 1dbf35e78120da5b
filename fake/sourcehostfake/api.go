package sourcehostfake

import (
	"cmp"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/apitwin/apitwin/internal/fakekit"
	"github.com/apitwin/apitwin/sourcehost"
)

// need is what a route asks of the caller's token.
type need int

const (
	needRead     need = iota // api or read_api; anonymous callers see public data
	needRepoRead             // api, read_api or read_repository; anonymous callers see public data
	needUserRead             // api, read_api or read_user; signed in
	needAnyScope             // any valid token
	needWrite                // api; signed in
)

func (n need) scopes() []string {
	switch n {
	case needRead:
		return []string{sourcehost.ScopeAPI, sourcehost.ScopeReadAPI}
	case needRepoRead:
		return []string{sourcehost.ScopeAPI, sourcehost.ScopeReadAPI, sourcehost.ScopeReadRepository}
	case needUserRead:
		return []string{sourcehost.ScopeAPI, sourcehost.ScopeReadAPI, sourcehost.ScopeReadUser}
	case needWrite:
		return []string{sourcehost.ScopeAPI}
	}
	return nil
}

func (n need) signInRequired() bool { return n == needUserRead || n == needAnyScope || n == needWrite }

// call is one request being answered, with the state locked.
type call struct {
	s      *Server
	st     *state
	r      *http.Request
	header http.Header
	p      *params
	user   *user // nil for anonymous callers
	tok    *token
	base   string  // the fake's URL, for web_url fields
	events []event // webhook deliveries to make once the state is unlocked
}

// answer is what a handler returns: a status and a JSON body, or raw bytes.
type answer struct {
	status      int
	body        any
	raw         []byte
	contentType string
}

func ok(body any) answer      { return answer{status: http.StatusOK, body: body} }
func created(body any) answer { return answer{status: http.StatusCreated, body: body} }

// The error shapes of the real API.
func message(status int, msg string) answer {
	return answer{status: status, body: map[string]any{"message": msg}}
}
func notFound(what string) answer { return message(http.StatusNotFound, "404 "+what+" Not Found") }
func forbidden() answer           { return message(http.StatusForbidden, "403 Forbidden") }
func badRequest(msg string) answer {
	return answer{status: http.StatusBadRequest, body: map[string]any{"error": msg}}
}
func invalid(status int, fields map[string][]string) answer {
	return answer{status: status, body: map[string]any{"message": fields}}
}
func messages(status int, msgs ...string) answer {
	return answer{status: status, body: map[string]any{"message": msgs}}
}

// serve answers a request with fn, holding the state lock; webhook
// deliveries fn queues are made after the lock is released and before the
// answer is written, so a caller that has its answer knows its receiver
// has the event.
func (s *Server) serve(w http.ResponseWriter, r *http.Request, n need, fn func(c *call) answer) {
	if !s.admit(w, r) {
		return
	}
	p, perr := readParams(r)

	s.mu.Lock()
	c := &call{s: s, st: s.st, r: r, header: w.Header(), p: p}
	c.base = s.externalFor(r)
	var a answer
	if auth, failed := s.authenticate(c, n); failed {
		a = auth
	} else if perr != "" {
		a = badRequest(perr)
	} else {
		a = fn(c)
	}
	body, err := encode(a)
	events := c.events
	s.mu.Unlock()

	if err != nil {
		http.Error(w, "sourcehostfake: encoding answer: "+err.Error(), http.StatusInternalServerError)
		return
	}
	s.deliver(events)
	h := w.Header()
	ct := a.contentType
	if ct == "" {
		ct = "application/json"
	}
	h.Set("Content-Type", ct)
	if body != nil {
		h.Set("Content-Length", strconv.Itoa(len(body)))
	}
	w.WriteHeader(a.status)
	_, _ = w.Write(body)
}

// admit counts the request against its caller's rate limit and sets the
// rate-limit headers; a refused request is answered here.
func (s *Server) admit(w http.ResponseWriter, r *http.Request) bool {
	d := s.limiter.Take(clientKey(r))
	if !d.Allowed {
		fakekit.WriteAnswer(w, retryLater(d))
		return false
	}
	d.SetHeaders(w.Header())
	return true
}

func encode(a answer) ([]byte, error) {
	switch {
	case a.raw != nil:
		return a.raw, nil
	case a.status == http.StatusNoContent || a.status == http.StatusNotModified:
		return nil, nil
	}
	return json.Marshal(a.body)
}

// externalFor is the fake's own URL: configured, started on, or the
// request's host. s.mu must be held.
func (s *Server) externalFor(r *http.Request) string {
	if s.cfg.externalURL != "" {
		return s.cfg.externalURL
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	s.external = scheme + "://" + r.Host
	return s.external
}

// authenticate resolves the caller's token and checks it against the
// route's need; it reports an error answer when it fails.
func (s *Server) authenticate(c *call, n need) (answer, bool) {
	secret := presentedToken(c.r)
	if secret == "" {
		if n.signInRequired() {
			return message(http.StatusUnauthorized, "401 Unauthorized"), true
		}
		return answer{}, false
	}
	t := c.st.tokens[secret]
	if t == nil {
		return message(http.StatusUnauthorized, "401 Unauthorized"), true
	}
	if why := c.st.tokenState(t); why != "" {
		return answer{status: http.StatusUnauthorized, body: map[string]any{"error": "invalid_token", "error_description": why}}, true
	}
	if need := n.scopes(); need != nil && !slices.ContainsFunc(t.scopes, func(s string) bool { return slices.Contains(need, s) }) {
		return answer{status: http.StatusForbidden, body: map[string]any{
			"error":             "insufficient_scope",
			"error_description": "The request requires higher privileges than provided by the access token.",
			"scope":             strings.Join(need, " "),
		}}, true
	}
	now := c.st.clock.Now()
	t.lastUsed = &now
	c.user, c.tok = t.user, t
	return answer{}, false
}

// project finds the route's {id} project, if the caller may see it.
func (c *call) project() (*project, *answer) {
	p := c.st.project(c.r.PathValue("id"))
	if p == nil || !c.st.canSee(c.user, p) {
		a := notFound("Project")
		return nil, &a
	}
	return p, nil
}

// atLeast checks the caller's access level to p.
func (c *call) atLeast(p *project, level int) *answer {
	if c.st.access(c.user, p) >= level {
		return nil
	}
	if c.user == nil {
		a := message(http.StatusUnauthorized, "401 Unauthorized")
		return &a
	}
	a := forbidden()
	return &a
}

// pathInt reads a numeric path value; a bad one is a 404 like any unknown id.
func (c *call) pathInt(name string) (int64, bool) {
	n, err := strconv.ParseInt(c.r.PathValue(name), 10, 64)
	return n, err == nil && n > 0
}

// paginate cuts one page out of items per the page and per_page
// parameters and sets the pagination headers: X-Page, X-Per-Page,
// X-Next-Page, X-Prev-Page, X-Total, X-Total-Pages and Link. Like the real
// service it leaves out the totals (and the last link) past 10,000 items.
func paginate[T any](c *call, items []T) ([]T, *answer) {
	page, perPage := int64(1), int64(20)
	if v, ok := c.p.int("page"); ok && v > 1 {
		page = v
	}
	if v, ok := c.p.int("per_page"); ok && v > 0 {
		perPage = min(v, 100)
	}
	if msg := c.p.problem(); msg != "" {
		a := badRequest(msg)
		return nil, &a
	}
	total := int64(len(items))
	totalPages := max((total+perPage-1)/perPage, 1)
	start := min((page-1)*perPage, total)
	end := min(start+perPage, total)

	h := c.header
	h.Set("X-Page", strconv.FormatInt(page, 10))
	h.Set("X-Per-Page", strconv.FormatInt(perPage, 10))
	next, prev := "", ""
	if page < totalPages {
		next = strconv.FormatInt(page+1, 10)
	}
	if page > 1 {
		prev = strconv.FormatInt(min(page-1, totalPages), 10)
	}
	h.Set("X-Next-Page", next)
	h.Set("X-Prev-Page", prev)
	counted := total <= 10_000
	if counted {
		h.Set("X-Total", strconv.FormatInt(total, 10))
		h.Set("X-Total-Pages", strconv.FormatInt(totalPages, 10))
	}
	var links []string
	link := func(rel string, p int64) {
		q := c.r.URL.Query()
		q.Set("page", strconv.FormatInt(p, 10))
		q.Set("per_page", strconv.FormatInt(perPage, 10))
		u := url.URL{Path: c.r.URL.Path, RawQuery: q.Encode()}
		links = append(links, "<"+c.base+u.String()+`>; rel="`+rel+`"`)
	}
	if prev != "" {
		link("prev", page-1)
	}
	if next != "" {
		link("next", page+1)
	}
	link("first", 1)
	if counted {
		link("last", totalPages)
	}
	h.Set("Link", strings.Join(links, ", "))
	return items[start:end], nil
}

// renderAll maps f over items.
func renderAll[T, R any](items []T, f func(T) R) []R {
	out := make([]R, len(items))
	for i, it := range items {
		out[i] = f(it)
	}
	return out
}

// keep returns the items f accepts.
func keep[T any](items []T, f func(T) bool) []T {
	var out []T
	for _, it := range items {
		if f(it) {
			out = append(out, it)
		}
	}
	return out
}

// sortOrder reads order_by (one of allowed, default first) and sort (asc or
// desc, default desc).
func sortOrder(p *params, allowed ...string) (string, bool) {
	by, ok := p.oneOf("order_by", allowed...)
	if !ok {
		by = allowed[0]
	}
	dir, ok := p.oneOf("sort", "asc", "desc")
	return by, !ok || dir == "desc"
}

// ordered finishes a sort comparison: ties go by id, and desc reverses.
func ordered(r int, aID, bID int64, desc bool) int {
	if r == 0 {
		r = cmp.Compare(aID, bID)
	}
	if desc {
		return -r
	}
	return r
}
