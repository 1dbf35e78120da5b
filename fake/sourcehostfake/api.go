package sourcehostfake

import (
	"cmp"
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
	base   string   // the fake's URL, for web_url fields
	events []event  // webhook deliveries to queue
	via    *trigger // the hook chain the request belongs to, if any
	date   string   // today's date, once read (see today)
	pooled bool     // buf has handed out out's buffer
	out    *outBuf  // the pooled buffer the answer is written into
}

func ok(body any) fakekit.Answer      { return fakekit.Answer{Status: http.StatusOK, Body: body} }
func created(body any) fakekit.Answer { return fakekit.Answer{Status: http.StatusCreated, Body: body} }

// The error shapes of the real API.
func message(status int, msg string) fakekit.Answer {
	return fakekit.Answer{Status: status, Body: map[string]any{"message": msg}}
}
func notFound(what string) fakekit.Answer {
	return message(http.StatusNotFound, "404 "+what+" Not Found")
}
func forbidden() fakekit.Answer { return message(http.StatusForbidden, "403 Forbidden") }
func badRequest(msg string) fakekit.Answer {
	return fakekit.Answer{Status: http.StatusBadRequest, Body: map[string]any{"error": msg}}
}
func invalid(status int, fields map[string][]string) fakekit.Answer {
	return fakekit.Answer{Status: status, Body: map[string]any{"message": fields}}
}
func messages(status int, msgs ...string) fakekit.Answer {
	return fakekit.Answer{Status: status, Body: map[string]any{"message": msgs}}
}

// errAnswer is a pointer to an error answer, as handlers' helpers return
// them.
func errAnswer(a fakekit.Answer) *fakekit.Answer { return &a }

// serve answers a request with fn. The body is parsed (and prep run on
// it) before the state is locked, and the answer encoded after it is unlocked; webhook deliveries
// fn triggers are queued in the order the state changed, and sent in the
// background (see deliveries.go).
func (s *Server) serve(w http.ResponseWriter, r *http.Request, n need, prep func(*params), fn func(c *call) fakekit.Answer) {
	if !s.admit(w, r) {
		return
	}
	p, perr := readParams(r)
	if prep != nil && perr == "" {
		prep(p)
	}
	a, out := s.answer(w, r, n, p, perr, fn)
	fakekit.WriteAnswer(w, a)
	out.release()
}

// answer runs fn with the state locked. The answer's body may be in out,
// a pooled buffer to release once it is written.
func (s *Server) answer(w http.ResponseWriter, r *http.Request, n need, p *params, perr string, fn func(c *call) fakekit.Answer) (_ fakekit.Answer, out *outBuf) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := &call{s: s, st: s.st, r: r, header: w.Header(), p: p, via: chainOf(r)}
	c.base = s.externalFor(r)
	if auth, failed := s.authenticate(c, n); failed {
		return auth, nil
	}
	if c.user != nil {
		fakekit.ExchangeFrom(r.Context()).SetCaller(c.user.username)
	}
	if perr != "" {
		return badRequest(perr), nil
	}
	a := fn(c)
	s.hooks.enqueue(c.via, c.events)
	return a, c.out
}

// admit counts the request against its caller's rate limit and sets the
// rate-limit headers; a refused request is answered here.
func (s *Server) admit(w http.ResponseWriter, r *http.Request) bool {
	d := s.limiter.Load().Take(clientKey(r))
	if !d.Allowed {
		fakekit.WriteAnswer(w, retryLater(d))
		return false
	}
	d.SetHeaders(w.Header())
	return true
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
func (s *Server) authenticate(c *call, n need) (fakekit.Answer, bool) {
	secret := presentedToken(c.r)
	if secret == "" {
		if n.signInRequired() {
			return message(http.StatusUnauthorized, "401 Unauthorized"), true
		}
		return fakekit.Answer{}, false
	}
	t := c.st.tokens[secret]
	if t == nil {
		return message(http.StatusUnauthorized, "401 Unauthorized"), true
	}
	if why := c.st.tokenState(t); why != "" {
		return fakekit.Answer{Status: http.StatusUnauthorized, Body: map[string]any{"error": "invalid_token", "error_description": why}}, true
	}
	if need := n.scopes(); need != nil && !slices.ContainsFunc(t.scopes, func(s string) bool { return slices.Contains(need, s) }) {
		return fakekit.Answer{Status: http.StatusForbidden, Body: map[string]any{
			"error":             "insufficient_scope",
			"error_description": "The request requires higher privileges than provided by the access token.",
			"scope":             strings.Join(need, " "),
		}}, true
	}
	now := c.st.clock.Now()
	t.lastUsed = &now
	c.user, c.tok = t.user, t
	return fakekit.Answer{}, false
}

// project finds the route's {id} project, if the caller may see it.
func (c *call) project() (*project, *fakekit.Answer) {
	p := c.st.project(c.r.PathValue("id"))
	if p == nil || !c.st.canSee(c.user, p) {
		a := notFound("Project")
		return nil, &a
	}
	return p, nil
}

// atLeast checks the caller's access level to p.
func (c *call) atLeast(p *project, level int) *fakekit.Answer {
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

// Offset pagination's bounds, as the real service has them.
const (
	defaultPerPage = 20
	maxPerPage     = 100
	// maxProjectOffset is the real service's offset_pagination_limit: a
	// list of projects refuses page*per_page past it with 405.
	maxProjectOffset = 50_000
	// maxCountedTotal is the count past which the totals are left out.
	maxCountedTotal = 10_000
)

// paginate cuts one page out of items per the page and per_page
// parameters and sets the pagination headers: X-Page, X-Per-Page,
// X-Next-Page, X-Prev-Page, X-Total, X-Total-Pages and Link. Like the real
// service it leaves out the totals (and the last link) past 10,000 items,
// and answers an empty page past the end, however far past.
func paginate[T any](c *call, items []T) ([]T, *fakekit.Answer) {
	page, perPage, fail := c.pageParams()
	if fail != nil {
		return nil, fail
	}
	return pageOf(c, items, page, perPage), nil
}

// paginateProjects is paginate for a list of projects, which the real
// service refuses to page past an offset of 50,000 (keyset pagination is
// the way there; the fake does not offer it).
func paginateProjects(c *call, items []*project) ([]*project, *fakekit.Answer) {
	page, perPage, fail := c.pageParams()
	if fail != nil {
		return nil, fail
	}
	// page*perPage > maxProjectOffset, without overflowing.
	if page > maxProjectOffset/perPage {
		return nil, offsetRefused("Project")
	}
	return pageOf(c, items, page, perPage), nil
}

// keysetPage is the page of projects (sorted by id, descending when desc)
// after id_after (or before id_before, descending), per_page of them, with
// a Link to the next page while there is one, as GitLab's keyset
// pagination answers: no page numbers, no totals, and no offset limit.
func keysetPage(c *call, items []*project, desc bool) ([]*project, *fakekit.Answer) {
	_, perPage, fail := c.pageParams()
	if fail != nil {
		return nil, fail
	}
	bound := "id_after"
	if desc {
		bound = "id_before"
	}
	from, given := c.p.int(bound)
	if msg := c.p.problem(); msg != "" {
		return nil, errAnswer(badRequest(msg))
	}
	start := 0
	if given {
		start = len(items)
		for i, pr := range items {
			if desc && pr.id < from || !desc && pr.id > from {
				start = i
				break
			}
		}
	}
	end := start + int(min(perPage, int64(len(items)-start)))
	page := items[start:end]
	h := c.header
	h.Set("X-Per-Page", strconv.FormatInt(perPage, 10))
	if end < len(items) && len(page) > 0 {
		q := c.r.URL.Query()
		q.Del("page")
		q.Del("id_after")
		q.Del("id_before")
		q.Set("pagination", "keyset")
		q.Set("order_by", "id")
		q.Set("per_page", strconv.FormatInt(perPage, 10))
		q.Set(bound, strconv.FormatInt(page[len(page)-1].id, 10))
		u := url.URL{Path: c.r.URL.Path, RawQuery: q.Encode()}
		h.Set("Link", "<"+c.base+u.String()+`>; rel="next"`)
	}
	return page, nil
}

func offsetRefused(kind string) *fakekit.Answer {
	return errAnswer(message(http.StatusMethodNotAllowed, "Offset pagination has a maximum allowed offset of "+
		strconv.Itoa(maxProjectOffset)+" for requests that return objects of type "+kind+
		". Remaining records can be retrieved using keyset pagination."))
}

// pageParams reads page (default 1; below 1 counts as 1) and per_page
// (default 20, at most 100; below 1 counts as the default). A value that
// is not a 64-bit integer is 400 "page is invalid".
func (c *call) pageParams() (page, perPage int64, _ *fakekit.Answer) {
	page, perPage = 1, defaultPerPage
	if v, ok := c.p.int("page"); ok && v > 1 {
		page = v
	}
	if v, ok := c.p.int("per_page"); ok && v > 0 {
		perPage = min(v, maxPerPage)
	}
	if msg := c.p.problem(); msg != "" {
		return 0, 0, errAnswer(badRequest(msg))
	}
	return page, perPage, nil
}

// pageOf is page page of items, perPage to a page, with its headers. No
// product of page and perPage is ever formed: page may be as large as an
// int64 goes.
func pageOf[T any](c *call, items []T, page, perPage int64) []T {
	total := int64(len(items))
	totalPages := max((total+perPage-1)/perPage, 1)
	start, end := total, total
	if page <= totalPages { // then (page-1)*perPage <= total
		start = (page - 1) * perPage
		end = min(start+perPage, total)
	}

	h := c.header
	h.Set("X-Page", strconv.FormatInt(page, 10))
	h.Set("X-Per-Page", strconv.FormatInt(perPage, 10))
	var next, prev int64
	if page < totalPages {
		next = page + 1
	}
	if page > 1 {
		prev = min(page-1, totalPages)
	}
	h.Set("X-Next-Page", pageNumber(next))
	h.Set("X-Prev-Page", pageNumber(prev))
	counted := total <= maxCountedTotal
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
	if prev != 0 {
		link("prev", prev)
	}
	if next != 0 {
		link("next", next)
	}
	link("first", 1)
	if counted {
		link("last", totalPages)
	}
	h.Set("Link", strings.Join(links, ", "))
	return items[start:end]
}

// pageNumber is a page number for a header: "" for none.
func pageNumber(n int64) string {
	if n == 0 {
		return ""
	}
	return strconv.FormatInt(n, 10)
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
