package sourcehostfake

import (
	"bytes"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// params reads a request's parameters the way the real API does: from the
// query string, a form body (urlencoded or multipart) or a JSON body, the
// body winning. Problems pile up as the real API reports them, all at once:
// "title is missing, labels is invalid".
type params struct {
	query url.Values
	form  url.Values
	json  map[string]json.RawMessage
	errs  []string
	blob  *blob // a new file's content, hashed before the state was locked
	// hookAddrs are what a hook URL's host resolved to before the state
	// was locked, when its check needs them (see lookupHookHost).
	hookAddrs []netip.Addr
}

// readParams parses r's parameters; a body that cannot be parsed is an error
// for a 400 answer.
func readParams(r *http.Request) (*params, string) {
	p := &params{}
	if r.URL.RawQuery != "" { // nil reads as empty: no map for a request without a query
		p.query = r.URL.Query()
	}
	if r.Body == nil || r.Body == http.NoBody {
		return p, ""
	}
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	switch ct {
	case "application/json":
		body, err := io.ReadAll(r.Body)
		if err != nil {
			return p, "could not read the request body"
		}
		if len(bytes.TrimSpace(body)) == 0 {
			return p, ""
		}
		if err := json.Unmarshal(body, &p.json); err != nil {
			return p, "The request body is not a valid JSON object"
		}
	case "application/x-www-form-urlencoded":
		if err := r.ParseForm(); err != nil {
			return p, "The request body is not a valid form"
		}
		p.form = r.PostForm
	case "multipart/form-data":
		if err := r.ParseMultipartForm(10 << 20); err != nil {
			return p, "The request body is not a valid form"
		}
		p.form = url.Values(r.MultipartForm.Value)
	}
	return p, ""
}

func (p *params) fail(name, why string) { p.errs = append(p.errs, name+" "+why) }

// problem returns the piled-up errors as the real API words them, or "".
func (p *params) problem() string { return strings.Join(p.errs, ", ") }

// lookup finds a parameter: a JSON value, or form or query strings (also
// under name[] for lists).
func (p *params) lookup(name string) (raw json.RawMessage, strs []string, ok bool) {
	if v, found := p.json[name]; found {
		return v, nil, true
	}
	for _, src := range []url.Values{p.form, p.query} {
		if v, found := src[name]; found {
			return nil, v, true
		}
		if v, found := src[name+"[]"]; found {
			return nil, v, true
		}
	}
	return nil, nil, false
}

// has reports whether the parameter was given at all.
func (p *params) has(name string) bool {
	_, _, ok := p.lookup(name)
	return ok
}

// str reads a string; JSON numbers and booleans are taken as their text, as
// the real API coerces them.
func (p *params) str(name string) (string, bool) {
	raw, strs, ok := p.lookup(name)
	if !ok {
		return "", false
	}
	if raw == nil {
		return strs[len(strs)-1], true
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, true
	}
	switch raw[0] {
	case '{', '[':
		p.fail(name, "is invalid")
		return "", false
	case 'n': // null
		return "", false
	}
	return string(raw), true
}

// required reads a string that must be present and not blank.
func (p *params) required(name string) string {
	s, ok := p.str(name)
	if !ok || strings.TrimSpace(s) == "" {
		p.fail(name, "is missing")
		return ""
	}
	return s
}

// int reads an integer.
func (p *params) int(name string) (int64, bool) {
	raw, strs, ok := p.lookup(name)
	if !ok {
		return 0, false
	}
	text := rawText(raw, strs)
	if text == "null" {
		return 0, false
	}
	n, ok := parseInt(text)
	if !ok {
		p.fail(name, "is invalid")
		return 0, false
	}
	return n, true
}

// rawText is a parameter's text: the last of its strings, or its JSON
// value as a string (a JSON string's content, else the JSON text). Only
// the JSON case needs a variable on the heap.
func rawText(raw json.RawMessage, strs []string) string {
	if raw == nil {
		return strs[len(strs)-1]
	}
	return jsonText(raw)
}

func jsonText(raw json.RawMessage) string {
	var text string
	if err := json.Unmarshal(raw, &text); err != nil {
		return string(raw)
	}
	return text
}

// parseInt reads a decimal integer that fits in 64 bits. Anything longer
// than the longest such number is refused at once, without being scanned
// (or copied into an error).
func parseInt(text string) (int64, bool) {
	text = strings.TrimSpace(text)
	if len(text) > len("-9223372036854775808") {
		return 0, false
	}
	n, err := strconv.ParseInt(text, 10, 64)
	return n, err == nil
}

// boolean reads true/false (also 1/0, t/f, yes/no, on/off).
func (p *params) boolean(name string) (bool, bool) {
	raw, strs, ok := p.lookup(name)
	if !ok {
		return false, false
	}
	text := rawText(raw, strs)
	switch strings.ToLower(strings.TrimSpace(text)) {
	case "true", "1", "t", "yes", "y", "on":
		return true, true
	case "false", "0", "f", "no", "n", "off":
		return false, true
	case "null":
		return false, false
	}
	p.fail(name, "is invalid")
	return false, false
}

// list reads a list of strings: a JSON array, a comma-separated string, or
// repeated form fields.
func (p *params) list(name string) ([]string, bool) {
	raw, strs, ok := p.lookup(name)
	if !ok {
		return nil, false
	}
	if raw != nil {
		var arr []string
		if json.Unmarshal(raw, &arr) == nil {
			return cleanList(arr), true
		}
		var s string
		if json.Unmarshal(raw, &s) == nil {
			strs = []string{s}
		} else {
			p.fail(name, "is invalid")
			return nil, false
		}
	}
	var out []string
	for _, s := range strs {
		out = append(out, strings.Split(s, ",")...)
	}
	return cleanList(out), true
}

func cleanList(in []string) []string {
	out := make([]string, 0, len(in))
	for _, s := range in {
		if s = strings.TrimSpace(s); s != "" && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// intList reads a list of integers in any of list's forms.
func (p *params) intList(name string) ([]int64, bool) {
	raw, _, ok := p.lookup(name)
	if !ok {
		return nil, false
	}
	if raw != nil {
		var arr []int64
		if json.Unmarshal(raw, &arr) == nil {
			return arr, true
		}
	}
	strs, ok := p.list(name)
	if !ok {
		return nil, false
	}
	out := make([]int64, 0, len(strs))
	for _, s := range strs {
		n, ok := parseInt(s)
		if !ok {
			p.fail(name, "is invalid")
			return nil, false
		}
		out = append(out, n)
	}
	return out, true
}

// oneOf reads a string that must be one of allowed.
func (p *params) oneOf(name string, allowed ...string) (string, bool) {
	s, ok := p.str(name)
	if !ok {
		return "", false
	}
	if !slices.Contains(allowed, s) {
		p.fail(name, "does not have a valid value")
		return "", false
	}
	return s, true
}

// variables reads pipeline variables: a JSON array of {key, value} or a
// JSON object of key to value, or in a form or a query name[KEY]=value
// (as curl sends a trigger's) or name[][key]=K&name[][value]=V pairs.
func (p *params) variables(name string) map[string]string {
	raw, strs, ok := p.lookup(name)
	if !ok {
		return p.bracketed(name)
	}
	if raw == nil {
		if len(strs) > 0 {
			p.fail(name, "is invalid")
		}
		return nil
	}
	var arr []struct {
		Key   *string `json:"key"`
		Value *string `json:"value"`
	}
	if json.Unmarshal(raw, &arr) == nil {
		out := make(map[string]string, len(arr))
		for _, v := range arr {
			if v.Key == nil || *v.Key == "" {
				p.fail(name+"[key]", "is missing")
				return nil
			}
			val := ""
			if v.Value != nil {
				val = *v.Value
			}
			out[*v.Key] = val
		}
		return out
	}
	var m map[string]string
	if json.Unmarshal(raw, &m) == nil {
		return m
	}
	p.fail(name, "is invalid")
	return nil
}

// bracketed reads a form's or a query's name[KEY]=value members, or its
// name[][key] and name[][value] lists (a value missing is ""); nil when it
// has none.
func (p *params) bracketed(name string) map[string]string {
	for _, src := range []url.Values{p.form, p.query} {
		if keys := src[name+"[][key]"]; len(keys) > 0 {
			vals := src[name+"[][value]"]
			out := make(map[string]string, len(keys))
			for i, k := range keys {
				if k == "" {
					p.fail(name+"[key]", "is missing")
					return nil
				}
				out[k] = ""
				if i < len(vals) {
					out[k] = vals[i]
				}
			}
			return out
		}
		var out map[string]string
		for k, vs := range src {
			key, found := strings.CutPrefix(k, name+"[")
			key, closed := strings.CutSuffix(key, "]")
			if !found || !closed || key == "" || strings.ContainsAny(key, "[]") || len(vs) == 0 {
				continue
			}
			if out == nil {
				out = map[string]string{}
			}
			out[key] = vs[len(vs)-1]
		}
		if out != nil {
			return out
		}
	}
	return nil
}
