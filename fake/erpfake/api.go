package erpfake

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

	"github.com/apitwin/apitwin/internal/fakekit"
)

// An API request is answered in two parts. The operation reads the
// request (path, query, body) before the state lock is taken: that is
// where anything a caller sends is parsed and bounded, however large. It
// returns the step that runs under the lock, which only looks records up
// and changes them. So no request can hold the lock for longer than its
// records take, and a refusal of a malformed or oversized value costs no
// other request anything.

// operation reads a request before the state lock and returns what to do
// under it.
type operation func(in *input) step

// step is the part of a request that runs under the state lock, with the
// caller authenticated.
type step func(c *call) fakekit.Answer

// input is what an operation reads: the request and its JSON body, parsed.
type input struct {
	r    *http.Request
	body *body
	// call is where the request's call is made (runLocked): allocated with
	// the input, as one allocation.
	call *call
}

// call is one API request being answered, with the state locked.
type call struct {
	s    *Server
	st   *state
	r    *http.Request
	user *user
	num  numbers
	// entity is the entity the call works in (erp.EntityHeader); 0 for
	// the default one, 1.
	entity int64
}

// buffer is an empty buffer for the call's answer (fakekit.AnswerBuffer):
// written makes the answer of it, which the request log keeps without a
// copy and gives back for reuse.
func (c *call) buffer() []byte { return fakekit.AnswerBuffer() }

// written answers 200 with b, written in a buffer from buffer. Not
// SecretFree: a login's answer holds its token, which the log masks.
func (c *call) written(b []byte) fakekit.Answer {
	return fakekit.Answer{Status: http.StatusOK, Raw: b, Pooled: true}
}

// fails is a step that answers a refusal found before the lock, once the
// caller is authenticated (the ERP checks credentials first).
func fails(a fakekit.Answer) step { return func(*call) fakekit.Answer { return a } }

func ok(body any) fakekit.Answer { return fakekit.Answer{Status: http.StatusOK, Body: body} }

// okJSON answers 200 with body, JSON already written.
func okJSON(body []byte) fakekit.Answer { return fakekit.Answer{Status: http.StatusOK, Raw: body} }

// render writes one record (or a record's lines) as the API shows it.
func render[T any](c *call, write func(*call, []byte, T) []byte, v T) []byte {
	return write(c, make([]byte, 0, 512), v)
}

// apiError is the ERP's error answer, Restler's shape: the message starts
// with the status text, and details follow under numeric keys.
//
//	{"error":{"code":500,"message":"Internal Server Error: Error creating product","0":"ErrorProductAlreadyExists"}}
func apiError(status int, msg string, details ...string) fakekit.Answer {
	text := http.StatusText(status)
	if msg != "" {
		text += ": " + msg
	}
	obj := map[string]any{"code": status, "message": text}
	for i, d := range details {
		obj[strconv.Itoa(i)] = d
	}
	body := map[string]any{"error": obj}
	return fakekit.Answer{Status: status, Body: body, Raw: phpJSON(body)}
}

// phpJSON encodes v as the ERP's REST layer does: PHP's json_encode
// escapes none of <, > and & (encoding/json escapes them by default), and
// Restler, outside its production mode (the ERP's default), leaves slashes
// and non-ASCII letters unescaped, as encoding/json does.
func phpJSON(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil // nil: WriteAnswer encodes Body, and names the problem
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

func badRequest(msg string) fakekit.Answer { return apiError(http.StatusBadRequest, msg) }
func notFound(msg string) fakekit.Answer   { return apiError(http.StatusNotFound, msg) }

// nothingDone is the answer to a transition already made. A 304 carries no
// body over HTTP, so the ERP's message ("Error nothing done. May be object
// is already validated") cannot reach the client; the status says it.
func nothingDone() fakekit.Answer { return fakekit.Answer{Status: http.StatusNotModified} }

// errorAnswer is the ERP's error answer, for the kit (faults, bodies over
// the limit, panics).
func errorAnswer(_ *http.Request, status int, msg string) fakekit.Answer {
	return apiError(status, msg)
}

// The messages of the authentication stage, as the ERP words them.
const (
	msgNoCredential = "Failed to login to API. Neither parameter 'HTTP_ERPAPIKEY' nor 'Authentication: Bearer' found on HTTP header (and no parameter ERPAPIKEY in URL)."
	msgBadKey       = "Error user not valid (not found with api key or bad status or bad validity dates) (conf->entity=" // + the entity + ")"
)

// moduleOffPage is what the ERP prints, with status 200, for any API call
// while its REST module is off.
const moduleOffPage = "Module <b>Api</b> must be enabled.<br><br>To activate modules, go on setup Area (Home->Setup->Modules)."

func moduleOff() fakekit.Answer {
	return fakekit.Answer{Status: http.StatusOK, Raw: []byte(moduleOffPage), ContentType: "text/html; charset=UTF-8"}
}

// serve answers an API request: op reads it before the state lock, its
// step runs under it once the caller is authenticated, and the answer is
// written after the lock is released.
func (s *Server) serve(w http.ResponseWriter, r *http.Request, op operation) {
	s.serveAs(w, r, op, false)
}

// servePublic answers an API request that needs no API key (the API's
// login), as serve does otherwise.
func (s *Server) servePublic(w http.ResponseWriter, r *http.Request, op operation) {
	s.serveAs(w, r, op, true)
}

func (s *Server) serveAs(w http.ResponseWriter, r *http.Request, op operation, public bool) {
	if !s.apiEnabled.Load() {
		fakekit.WriteAnswer(w, moduleOff())
		return
	}
	in, fail := readInput(r)
	var run step
	var c *call
	if in != nil {
		run, c = op(in), in.call
	} else {
		run, c = fails(fail), new(call)
	}
	if hook := s.parsedHook.Load(); hook != nil {
		(*hook)(r)
	}
	a, caller := s.runLocked(r, run, c, public)
	if caller != "" {
		fakekit.ExchangeFrom(r.Context()).SetCaller(caller)
	}
	fakekit.WriteAnswer(w, a)
}

// runLocked authenticates the caller (unless the operation is public) and
// runs the step in c, holding the state lock; it returns the answer and
// the caller's login ("" for none).
func (s *Server) runLocked(r *http.Request, run step, c *call, public bool) (fakekit.Answer, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	*c = call{s: s, st: s.st, r: r, num: numbers{native: s.nativeNumbers.Load()}}
	entity, ok := requestEntity(r)
	if !ok {
		return badEntity(), ""
	}
	leave, ok := s.st.inEntity(entity)
	if !ok {
		return badEntity(), ""
	}
	defer leave()
	c.entity = entity
	if !public {
		if fail := s.authenticate(c); fail != nil {
			return *fail, ""
		}
	}
	a := run(c)
	if c.user == nil {
		return a, ""
	}
	return a, c.user.login
}

// authenticate finds the caller: an API key (header ERPAPIKEY, else the
// ERPAPIKEY or api_key query parameter, else "Authorization: Bearer
// <key>"), else a live web session. It returns an error answer when there
// is none.
func (s *Server) authenticate(c *call) *fakekit.Answer {
	key := c.r.Header.Get("ERPAPIKEY")
	if key == "" {
		q := query(c.r)
		key = q.Get("ERPAPIKEY")
		if key == "" {
			key = q.Get("api_key")
		}
	}
	if key == "" {
		key = bearer(c.r.Header.Get("Authorization"))
	}
	if key != "" {
		u := c.st.keys[key]
		if u == nil || !u.enabled {
			a := apiError(http.StatusUnauthorized, msgBadKey+strconv.FormatInt(c.inEntity(), 10)+")")
			return &a
		}
		c.user = u
		return nil
	}
	if u := c.st.sessionUser(c.r, s.cfg.sessionTimeout); u != nil && u.enabled {
		c.user = u
		return nil
	}
	a := apiError(http.StatusUnauthorized, msgNoCredential)
	return &a
}

// bearer is the credential of an "Authorization: Bearer <key>" header (the
// word in any case, then spaces), or "".
func bearer(h string) string {
	word, rest, ok := strings.Cut(strings.TrimSpace(h), " ")
	if !ok || !strings.EqualFold(word, "Bearer") {
		return ""
	}
	return strings.TrimSpace(rest)
}

// created answers a create: the new record, or (WithBareCreateIDs) its
// bare id, as most versions of the ERP do.
func (c *call) created(id int64, record []byte) fakekit.Answer {
	if c.s.cfg.bareCreateIDs {
		return ok(id)
	}
	return okJSON(record)
}

// findByID finds the record id names in list (in id order), or answers
// 404 "<noun> not found".
func findByID[T interface{ recID() int64 }](list []T, id int64, noun string) (T, *fakekit.Answer) {
	v, found := byID(list, id)
	if !found {
		a := notFound(noun + " not found")
		return v, &a
	}
	return v, nil
}

// pathID reads the {id} of a route. Not a number finds nothing, as an
// unknown id does (the ERP's router matches no route); a number beyond
// the ERP's INT ids is refused with 400.
func (in *input) pathID() (int64, *fakekit.Answer) {
	v := in.r.PathValue("id")
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil && !isDigits(strings.TrimPrefix(v, "-")) {
		return -1, nil
	}
	if err != nil || n < minInt || n > maxInt {
		a := badRequest("Invalid value specified for `id`. Expecting integer value from " + intRange)
		return 0, &a
	}
	return n, nil
}

// byPath is an operation on the record its route's {id} names.
func byPath(fn func(c *call, id int64) fakekit.Answer) operation {
	return func(in *input) step {
		id, fail := in.pathID()
		if fail != nil {
			return fails(*fail)
		}
		return func(c *call) fakekit.Answer { return fn(c, id) }
	}
}
