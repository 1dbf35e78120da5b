package sourcehostfake

import (
	"cmp"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/apitwin/apitwin/internal/fakekit"
	"github.com/apitwin/apitwin/sourcehost"
)

// need is what a route asks of the caller's token.
type need int

const (
	needRead       need = iota // api or read_api; anonymous callers see public data
	needRepoRead               // api, read_api or read_repository; anonymous callers see public data
	needUserRead               // api, read_api or read_user; signed in
	needAnyScope               // any valid token
	needWrite                  // api; signed in
	needSignedRead             // api or read_api; signed in
	needUsersRead              // api, read_api or read_user; anonymous callers see public data
)

func (n need) scopes() []string {
	switch n {
	case needRead, needSignedRead:
		return []string{sourcehost.ScopeAPI, sourcehost.ScopeReadAPI}
	case needRepoRead:
		return []string{sourcehost.ScopeAPI, sourcehost.ScopeReadAPI, sourcehost.ScopeReadRepository}
	case needUserRead, needUsersRead:
		return []string{sourcehost.ScopeAPI, sourcehost.ScopeReadAPI, sourcehost.ScopeReadUser}
	case needWrite:
		return []string{sourcehost.ScopeAPI}
	}
	return nil
}

func (n need) signInRequired() bool {
	return n == needUserRead || n == needAnyScope || n == needWrite || n == needSignedRead
}

// call is one request being answered, with the state locked.
type call struct {
	s      *Server
	st     *state
	r      *http.Request
	header http.Header
	p      *params
	user   *user // nil for anonymous callers
	tok    *token
	job    *ciJob   // the job whose token signed the request in, if one did (auth.go)
	base   string   // the fake's URL, for web_url fields
	events []event  // webhook deliveries to queue
	via    *trigger // the hook chain of the fake's own calls (a request's is read when it has events to queue)
	date   string   // today's date, once read (see today)
	pooled bool     // buf has handed out a pooled buffer
	// The users and milestones records show, made once for the records
	// of an answer to share (see userRef, milestoneRef).
	users      []writtenRecord
	milestones []writtenRecord
	// The web page and the path of the project pathsOf (as JSON string
	// contents), and the paths of namespaces, made once for the records of
	// an answer to share (see projectPathsJSON, namespacePaths).
	pathsOf                 *project
	projectWeb, projectPath string
	namespaces              []nsPaths
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
// it) before the state is locked, and the answer written out after it is
// unlocked (records written straight from the state are in a pooled
// buffer; see answerbuf.go); webhook deliveries fn triggers are
// queued in the order the state changed, and sent in the background (see
// deliveries.go).
func (s *Server) serve(w http.ResponseWriter, r *http.Request, n need, prep func(*params), fn func(c *call) fakekit.Answer) {
	if !s.admit(w, r) {
		return
	}
	p, perr := readParams(r)
	if prep != nil && perr == "" {
		prep(p)
	}
	a := s.answer(w, r, n, p, perr, fn)
	if job, ok := a.Body.(*archiveJob); ok { // streamed, not encoded (archive.go)
		writeArchive(w, job)
		return
	}
	fakekit.WriteAnswer(w, a)
}

// answer runs fn with the state locked.
func (s *Server) answer(w http.ResponseWriter, r *http.Request, n need, p *params, perr string, fn func(c *call) fakekit.Answer) fakekit.Answer {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := &call{s: s, st: s.st, r: r, header: w.Header(), p: p}
	c.base = s.externalFor(r)
	s.deleteDue()
	if auth, failed := s.authenticate(c, n); failed {
		return auth
	}
	if auth, failed := s.sudo(c); failed {
		return auth
	}
	if c.user != nil {
		fakekit.ExchangeFrom(r.Context()).SetCaller(c.user.username)
	}
	if perr != "" {
		return badRequest(perr)
	}
	if needs := recordNeeds[r.Pattern]; needs != nil {
		if fail := s.roomFor(needs(c)); fail != nil {
			return *fail
		}
	}
	a := fn(c)
	if len(c.events) > 0 {
		s.hooks.enqueue(chainOf(r), c.events)
	}
	return a
}

// admit counts the request against its caller's rate limit and sets the
// rate-limit headers; a refused request is answered here.
func (s *Server) admit(w http.ResponseWriter, r *http.Request) bool {
	key := ""
	if s.cfg.rateLimit > 0 { // else Take counts nothing: the key is not needed
		key = clientKey(r)
	}
	d := s.limiter.Load().Take(key)
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
	if e := s.external; len(e) != len(scheme)+3+len(r.Host) || !strings.HasPrefix(e, scheme) || !strings.HasSuffix(e, r.Host) ||
		e[len(scheme):len(scheme)+3] != "://" {
		s.external = scheme + "://" + r.Host
	}
	return s.external
}

// authenticate resolves the caller's token and checks it against the
// route's need; it reports an error answer when it fails.
func (s *Server) authenticate(c *call, n need) (fakekit.Answer, bool) {
	secret := presentedToken(c.r)
	if secret == "" {
		if fail, failed, handled := s.authenticateJob(c); handled {
			return fail, failed
		}
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
		return insufficientScope(need...), true
	}
	if t.lastUsed == nil {
		t.lastUsed = new(time.Time)
	}
	*t.lastUsed = c.st.clock.Now() // nothing keeps the pointer: renderings copy the time
	c.user, c.tok = t.user, t
	return fakekit.Answer{}, false
}

// project finds the route's {id} project, if the caller may see it.
func (c *call) project() (*project, *fakekit.Answer) {
	p := c.st.project(c.r.PathValue("id"))
	// A job token reaches its own project alone.
	if p == nil || !c.st.canSee(c.user, p) || c.job != nil && c.job.pipeline.project != p {
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

// pageParamsUpTo is pageParams, refusing past the real service's offset
// limit when kind names the records: a list of projects ("Project") is
// refused past an offset of 50,000, keyset pagination being the way
// there; "" means no limit.
func (c *call) pageParamsUpTo(kind string) (page, perPage int64, _ *fakekit.Answer) {
	page, perPage, fail := c.pageParams()
	if fail != nil {
		return 0, 0, fail
	}
	// page*perPage > maxProjectOffset, without overflowing.
	if kind != "" && page > maxProjectOffset/perPage {
		return 0, 0, offsetRefused(kind)
	}
	return page, perPage, nil
}

// sortedPage is paginate (with the offset limit of kind, see
// pageParamsUpTo) over the items accepted (all of them when accepted is
// nil), sorted stably by cmp. When accepted takes them all
// and they are already in cmp's order, or in exactly its reverse (a list
// kept in id order asked for newest first, the default), it neither
// copies the list nor sorts it: it takes the page from items, reversed
// when it has to be.
func sortedPage[T any](c *call, items []T, accepted func(T) bool, cmp func(a, b T) int, kind string) ([]T, *fakekit.Answer) {
	all, ascending, descending := true, true, true
	for i, it := range items {
		if accepted != nil && !accepted(it) {
			all = false
			break
		}
		if i > 0 && (ascending || descending) {
			r := cmp(items[i-1], it)
			ascending = ascending && r <= 0
			descending = descending && r > 0
		}
	}
	if !all || !ascending && !descending {
		var kept []T
		if accepted == nil {
			kept = slices.Clone(items)
		} else {
			kept = keep(items, accepted)
		}
		sortStable(kept, cmp)
		page, perPage, fail := c.pageParamsUpTo(kind)
		if fail != nil {
			return nil, fail
		}
		return pageOf(c, kept, page, perPage), nil
	}
	return orderedPage(c, items, descending && !ascending, kind)
}

// orderedPage is sortedPage of items already in the order asked for
// (desc: in its exact reverse), with nothing filtered out: the page is cut
// from items, reversed when desc, in the time of a page, whatever the
// length of the list.
func orderedPage[T any](c *call, items []T, desc bool, kind string) ([]T, *fakekit.Answer) {
	page, perPage, fail := c.pageParamsUpTo(kind)
	if fail != nil {
		return nil, fail
	}
	start, end := pageBounds(c, int64(len(items)), page, perPage)
	if !desc {
		return items[start:end], nil
	}
	n := int64(len(items))
	out := slices.Clone(items[n-end : n-start])
	slices.Reverse(out)
	return out, nil
}

// idBound walks projects (sorted by id, descending when desc) by id_after
// (or id_before, descending), as GitLab's keyset pagination of projects
// does: no page numbers, no totals, and no offset limit.
func idBound(c *call, items []*project, desc bool) keyset[*project] {
	bound := "id_after"
	if desc {
		bound = "id_before"
	}
	return keyset[*project]{param: bound,
		next: func(last *project) string { return strconv.FormatInt(last.id, 10) },
		link: func(q url.Values) {
			q.Del(map[string]string{"id_after": "id_before", "id_before": "id_after"}[bound])
			q.Set("order_by", "id")
		},
		start: func(string) (int, *fakekit.Answer) {
			from, given := c.p.int(bound)
			if msg := c.p.problem(); msg != "" {
				return 0, errAnswer(badRequest(msg))
			}
			if !given {
				return 0, nil
			}
			for i, pr := range items {
				if desc && pr.id < from || !desc && pr.id > from {
					return i, nil
				}
			}
			return len(items), nil
		}}
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
	start, end := pageBounds(c, int64(len(items)), page, perPage)
	return items[start:end]
}

// pageBounds is where page page of total items, perPage to a page, starts
// and ends; it sets the page's headers.
func pageBounds(c *call, total, page, perPage int64) (start, end int64) {
	totalPages := max((total+perPage-1)/perPage, 1)
	start, end = total, total
	if page <= totalPages { // then (page-1)*perPage <= total
		start = (page - 1) * perPage
		end = min(start+perPage, total)
	}

	counted := total <= maxCountedTotal
	var next, prev int64
	if page < totalPages {
		next = page + 1
	}
	if page > 1 {
		prev = min(page-1, totalPages)
	}
	c.setPageHeaders(page, perPage, next, prev, total, totalPages, counted)
	return start, end
}

// setPageHeaders sets X-Page, X-Per-Page, X-Next-Page and X-Prev-Page
// (empty for none), X-Total and X-Total-Pages when counted, and Link:
// prev, next, first and, when counted, last. Each link is the request's
// path and query with page and per_page set, the query's keys sorted and
// escaped as url.Values.Encode writes them. The values are cut from one
// string, written in one pass.
func (c *call) setPageHeaders(page, perPage, next, prev, total, totalPages int64, counted bool) {
	var scratch [1024]byte
	b := scratch[:0]
	var ends [7]int // where each value ends in b
	b = appendInt(b, page)
	ends[0] = len(b)
	b = appendInt(b, perPage)
	ends[1] = len(b)
	b = appendPageNumber(b, next)
	ends[2] = len(b)
	b = appendPageNumber(b, prev)
	ends[3] = len(b)
	b = appendInt(b, total)
	ends[4] = len(b)
	b = appendInt(b, totalPages)
	ends[5] = len(b)

	// url.URL's String of a path alone is the escaped path, when it
	// starts with a slash (as a routed path does).
	u := url.URL{Path: c.r.URL.Path}
	path := u.EscapedPath()
	if !strings.HasPrefix(path, "/") {
		path = u.String()
	}
	var keyBuf [8]string
	keys := keyBuf[:0] // the query's other keys, sorted
	for k := range c.p.query {
		if k != "page" && k != "per_page" {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	link := func(b []byte, rel string, p int64) []byte {
		if len(b) > ends[5] {
			b = append(b, ", "...)
		}
		b = append(b, '<')
		b = append(b, c.base...)
		b = append(b, path...)
		b = append(b, '?')
		b = c.appendPageQuery(b, keys, p, perPage)
		b = append(b, `>; rel="`...)
		b = append(b, rel...)
		return append(b, '"')
	}
	if prev != 0 {
		b = link(b, "prev", prev)
	}
	if next != 0 {
		b = link(b, "next", next)
	}
	b = link(b, "first", 1)
	if counted {
		b = link(b, "last", totalPages)
	}
	ends[6] = len(b)

	all := string(b)
	vals := make([]string, 7)
	from := 0
	for i, end := range ends {
		vals[i] = all[from:end]
		from = end
	}
	h := c.header
	h["X-Page"] = vals[0:1:1]
	h["X-Per-Page"] = vals[1:2:2]
	h["X-Next-Page"] = vals[2:3:3]
	h["X-Prev-Page"] = vals[3:4:4]
	if counted {
		h["X-Total"] = vals[4:5:5]
		h["X-Total-Pages"] = vals[5:6:6]
	}
	h["Link"] = vals[6:7:7]
}

// appendPageQuery appends the request's query (its keys but page and
// per_page, sorted) with page and per_page in their sorted places.
func (c *call) appendPageQuery(b []byte, keys []string, page, perPage int64) []byte {
	start := len(b)
	sep := func(b []byte) []byte {
		if len(b) > start {
			b = append(b, '&')
		}
		return b
	}
	pageDone, perPageDone := false, false
	for _, k := range keys {
		if !pageDone && k > "page" {
			b = append(sep(b), "page="...)
			b, pageDone = appendInt(b, page), true
		}
		if !perPageDone && k > "per_page" {
			b = append(sep(b), "per_page="...)
			b, perPageDone = appendInt(b, perPage), true
		}
		ek := url.QueryEscape(k)
		for _, v := range c.p.query[k] {
			b = append(sep(b), ek...)
			b = append(b, '=')
			b = append(b, url.QueryEscape(v)...)
		}
	}
	if !pageDone {
		b = append(sep(b), "page="...)
		b = appendInt(b, page)
	}
	if !perPageDone {
		b = append(sep(b), "per_page="...)
		b = appendInt(b, perPage)
	}
	return b
}

func appendInt(b []byte, n int64) []byte { return strconv.AppendInt(b, n, 10) }

// appendPageNumber appends a page number for a header: nothing for none.
func appendPageNumber(b []byte, n int64) []byte {
	if n == 0 {
		return b
	}
	return appendInt(b, n)
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
	out := make([]T, 0, len(items))
	for _, it := range items {
		if f(it) {
			out = append(out, it)
		}
	}
	return out
}

// sortStable sorts items stably by cmp. The usual cases, items already in
// order, or in exactly the reverse order with no two equal (a list kept in
// id order asked for newest first), cost one pass instead of a sort.
func sortStable[T any](items []T, cmp func(a, b T) int) {
	ascending, descending := true, true
	for i := 1; i < len(items) && (ascending || descending); i++ {
		r := cmp(items[i-1], items[i])
		ascending = ascending && r <= 0
		descending = descending && r > 0
	}
	switch {
	case ascending:
	case descending:
		slices.Reverse(items)
	default:
		slices.SortStableFunc(items, cmp)
	}
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
