package credential

import (
	"bytes"
	"encoding/json"
	"mime"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Fields are the names of the fields that hold secrets in one service's
// bodies (a password, a token a login answers, a webhook's secret), which
// a fake declares once. Their values are masked in JSON bodies at any depth,
// in form bodies (urlencoded and multipart) and in query strings, where
// credential query parameters are masked too. Names match in any case, as
// encoding/json matches a body's fields to a struct's; a JSON name spelt
// with escapes (\u0070assword) matches too. A nil *Fields masks the
// credential query parameters and URLs' userinfo, and nothing else.
//
// Masking works on the start of a body as well as on a whole one (a
// request log keeps only the start): a secret cut short is masked to the
// end. A value that holds no secret (null, "") is left as it is, so that a
// test can still see that none was sent.
type Fields struct {
	names          map[string]bool // lower case
	minLen, maxLen int
	// anchors are the names no other name is part of (pass, not
	// password), grouped by their rarest letter: an answer none of them is
	// in holds no field (MaskAnswer).
	anchors []anchor
}

// anchor is a letter and the names it is the rarest letter of, with where
// it is in each.
type anchor struct {
	letter byte
	names  []string
	at     []int
}

// letterFrequency is the English letters, most frequent first.
const letterFrequency = "etaoinshrdlcumwfgypbvkjxqz"

// rarest is the index in name of its rarest letter.
func rarest(name string) int {
	r := 0
	for i := range len(name) {
		if strings.IndexByte(letterFrequency, name[i]) > strings.IndexByte(letterFrequency, name[r]) {
			r = i
		}
	}
	return r
}

// in reports whether one of a's names is in b, in any ASCII case. It looks
// for the letter with bytes.IndexByte (SIMD: tens of GB/s), in both cases,
// and compares the names around each one found.
func (a anchor) in(b []byte) bool {
	cases, n := [2]byte{a.letter}, 1
	if 'a' <= a.letter && a.letter <= 'z' {
		cases[1], n = a.letter-'a'+'A', 2
	}
	for _, l := range cases[:n] {
		for i := 0; ; {
			j := bytes.IndexByte(b[i:], l)
			if j < 0 {
				break
			}
			for k, name := range a.names {
				start := i + j - a.at[k]
				if start >= 0 && start+len(name) <= len(b) && foldEqual(b[start:start+len(name)], name) {
					return true
				}
			}
			i += j + 1
		}
	}
	return false
}

// foldEqual reports whether b is name (lower case) in any ASCII case.
func foldEqual(b []byte, name string) bool {
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != name[i] {
			return false
		}
	}
	return true
}

// maxNameLen bounds a field name, so that a name is lowered in a buffer on
// the stack.
const maxNameLen = 64

// NewFields returns the set of names; nil when there are none.
func NewFields(names ...string) *Fields {
	if len(names) == 0 {
		return nil
	}
	f := &Fields{names: make(map[string]bool, len(names)), minLen: maxNameLen}
	for _, n := range names {
		if n == "" || len(n) > maxNameLen {
			panic("credential.NewFields: a field name is 1 to 64 bytes: " + n)
		}
		f.names[strings.ToLower(n)] = true
		f.minLen, f.maxLen = min(f.minLen, len(n)), max(f.maxLen, len(n))
	}
	for n := range f.names {
		core := true
		for m := range f.names {
			if m != n && strings.Contains(n, m) {
				core = false
			}
		}
		if !core {
			continue
		}
		r := rarest(n)
		i := slices.IndexFunc(f.anchors, func(a anchor) bool { return a.letter == n[r] })
		if i < 0 {
			f.anchors = append(f.anchors, anchor{letter: n[r]})
			i = len(f.anchors) - 1
		}
		f.anchors[i].names = append(f.anchors[i].names, n)
		f.anchors[i].at = append(f.anchors[i].at, r)
	}
	return f
}

// Names are the names, in lower case.
func (f *Fields) Names() []string {
	if f == nil {
		return nil
	}
	out := make([]string, 0, len(f.names))
	for n := range f.names {
		out = append(out, n)
	}
	return out
}

// Has reports whether name (in any case) is one of the fields.
func (f *Fields) Has(name string) bool { return f != nil && f.has([]byte(name)) }

func (f *Fields) has(name []byte) bool {
	return f != nil && len(name) >= f.minLen && len(name) <= f.maxLen && lowerIn(f.names, name)
}

// lowerIn reports whether name, in lower case, is in set, whose names are
// at most maxNameLen bytes; it lowers name in a buffer on the stack.
func lowerIn(set map[string]bool, name []byte) bool {
	if len(name) > maxNameLen {
		return false
	}
	var buf [maxNameLen]byte
	for i, c := range name {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		buf[i] = c
	}
	return set[string(buf[:len(name)])]
}

// MaskBody returns body with the values of the fields masked: as JSON when
// it starts like JSON (whatever its contentType says: what matters is what
// a service may read), as multipart when contentType says so, else as a
// form; and the userinfo of the URLs in it (MaskUserinfo). It returns body
// itself when nothing is masked, else a new slice.
func (f *Fields) MaskBody(body []byte, contentType string) []byte {
	return MaskUserinfo(f.maskFields(body, contentType))
}

func (f *Fields) maskFields(body []byte, contentType string) []byte {
	if f == nil || len(body) == 0 {
		return body
	}
	if t := bytes.TrimLeft(body, " \t\r\n"); len(t) > 0 && (t[0] == '{' || t[0] == '[') {
		return f.MaskJSON(body)
	}
	if len(contentType) > 10 && strings.EqualFold(contentType[:10], "multipart/") {
		if _, params, err := mime.ParseMediaType(contentType); err == nil && params["boundary"] != "" {
			return f.maskMultipart(body, params["boundary"])
		}
	}
	return maskPairs(body, f, false)
}

// MaskAnswer is MaskBody for an answer the fake wrote, whose field names
// are the fake's own, in plain ASCII: an answer in which no name is found
// in any ASCII case (a search for its rarest letter, a few microseconds
// for 64 KiB) is not parsed, and only one that holds a name is read
// whole, as MaskBody reads it. A request's body, which the caller writes,
// goes through MaskBody, which also decodes escaped names (\u0070ass) and
// folds non-ASCII letters as encoding/json does; it is small, and the fake
// parses it whole anyway, at a higher cost.
func (f *Fields) MaskAnswer(body []byte, contentType string) []byte {
	if f != nil {
		for _, a := range f.anchors {
			if a.in(body) {
				return f.MaskBody(body, contentType)
			}
		}
	}
	return MaskUserinfo(body)
}

// endsUserinfo reports whether c cannot be in a URL's userinfo as a body
// holds it: the '/' of "://" before it, or what ends a string or a word.
func endsUserinfo(c byte) bool {
	switch c {
	case '/', '"', '\'', '<', '>', '\\', '@', ' ', '\t', '\r', '\n':
		return true
	}
	return false
}

// urlMarker is Redacted as a URL's userinfo, escaped as net/url writes it,
// so that the URL still parses.
const urlMarker = "%5BREDACTED%5D"

// MaskUserinfo masks the userinfo (user:password) of the URLs in b
// ("https://bob:s3cret@hooks.example/" becomes
// "https://%5BREDACTED%5D@hooks.example/"), wherever they are: a URL's
// password is a secret whatever field holds it (a webhook's URL). It looks
// for the '@' (rare in bodies but for e-mail addresses) and back from it,
// for at most 256 bytes, for the "://" the userinfo follows. It returns b
// itself when there is none.
func MaskUserinfo(b []byte) []byte {
	var out []byte
	last := 0
	for i := 0; i < len(b); {
		j := bytes.IndexByte(b[i:], '@')
		if j < 0 {
			break
		}
		at := i + j
		k := at - 1
		for k >= 0 && at-k <= 256 && !endsUserinfo(b[k]) {
			k--
		}
		if k >= 2 && k+1 < at && b[k] == '/' && b[k-1] == '/' && b[k-2] == ':' {
			out = append(out, b[last:k+1]...)
			out = append(out, urlMarker...)
			last = at
		}
		i = at + 1
	}
	if out == nil {
		return b
	}
	return append(out, b[last:]...)
}

// MaskQuery returns a raw query string with the values of credential
// parameters and of the fields masked; raw itself when there are none.
func (f *Fields) MaskQuery(raw string) string {
	if raw == "" {
		return raw
	}
	return maskPairs(raw, f, true)
}

// jsonMarker is Redacted as a JSON value.
const jsonMarker = `"` + Redacted + `"`

// MaskJSON masks the values of the fields in JSON text, which may be cut
// short. It returns b itself when nothing is masked.
func (f *Fields) MaskJSON(b []byte) []byte {
	if f == nil {
		return b
	}
	var out []byte // nil until something is masked
	last := 0      // b[last:] is not in out yet
	for i := 0; i < len(b); {
		q := bytes.IndexByte(b[i:], '"')
		if q < 0 {
			break
		}
		s := i + q
		e := stringEnd(b, s)
		if e < 0 {
			break
		}
		j := skipSpace(b, e+1)
		if j == len(b) || b[j] != ':' {
			i = e + 1 // a value, not a name
			continue
		}
		i = j + 1
		if !f.jsonName(b[s+1 : e]) {
			continue
		}
		v := skipSpace(b, i)
		if v == len(b) {
			break
		}
		end := valueEnd(b, v)
		if bytes.Equal(b[v:end], []byte("null")) || bytes.Equal(b[v:end], []byte(`""`)) {
			i = end
			continue
		}
		out = append(out, b[last:v]...)
		out = append(out, jsonMarker...)
		last, i = end, end
	}
	if out == nil {
		return b
	}
	return append(out, b[last:]...)
}

// jsonName reports whether a JSON string's text (between its quotes) names
// a field as encoding/json would match it: escapes decoded, and letters
// folded as bytes.EqualFold folds them (the Kelvin sign matches k, the
// long s matches s).
func (f *Fields) jsonName(raw []byte) bool {
	plain := true
	for _, c := range raw {
		if c == '\\' || c >= utf8.RuneSelf {
			plain = false
			break
		}
	}
	if plain {
		return f.has(raw)
	}
	if f == nil || len(raw) > 6*f.maxLen { // every character escaped as \uXXXX, at most
		return false
	}
	var name string
	if json.Unmarshal(append(append([]byte{'"'}, raw...), '"'), &name) != nil {
		return false
	}
	return f.has([]byte(strings.Map(toASCII, name)))
}

// toASCII is the ASCII letter r folds to, else r.
func toASCII(r rune) rune {
	for g := unicode.SimpleFold(r); r >= utf8.RuneSelf && g != r; g = unicode.SimpleFold(g) {
		if g < utf8.RuneSelf {
			return g
		}
	}
	return r
}

// stringEnd is the index of the quote that closes the JSON string opened at
// b[s], -1 when b ends first.
func stringEnd(b []byte, s int) int {
	for k := s + 1; ; {
		q := bytes.IndexByte(b[k:], '"')
		if q < 0 {
			return -1
		}
		p := k + q
		n := 0
		for p-1-n > s && b[p-1-n] == '\\' {
			n++
		}
		if n%2 == 0 {
			return p
		}
		k = p + 1
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}

// valueEnd is the end of the JSON value starting at b[v] (a string, an
// object or array with all it holds, or a scalar), len(b) when b ends
// first.
func valueEnd(b []byte, v int) int {
	switch b[v] {
	case '"':
		if e := stringEnd(b, v); e >= 0 {
			return e + 1
		}
		return len(b)
	case '{', '[':
		depth := 0
		for i := v; i < len(b); i++ {
			switch b[i] {
			case '"':
				e := stringEnd(b, i)
				if e < 0 {
					return len(b)
				}
				i = e
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
		}
		return len(b)
	}
	for i := v; i < len(b); i++ {
		switch b[i] {
		case ',', '}', ']', ' ', '\t', '\r', '\n':
			return i
		}
	}
	return len(b)
}

// maskPairs masks the values of the name=value pairs of a form or query
// string whose name is one of f's or, in a query, a credential parameter. Pairs are split at '&' and, as some
// servers also do, at ';'; a masked value runs to the next '&', so that a
// value holding a ';' is masked whole. A name is decoded (%XX, +) and read
// as the last name of a bracketed one (hook[token], token[]). It returns s
// itself when nothing is masked.
func maskPairs[T ~string | ~[]byte](s T, f *Fields, query bool) T {
	var out []byte
	var buf [3 * maxNameLen]byte // a name, every byte of it %XX at most
	last := 0
	for i := 0; i < len(s); {
		end := i
		for end < len(s) && s[end] != '&' && s[end] != ';' {
			end++
		}
		eq := i
		for eq < end && s[eq] != '=' {
			eq++
		}
		if eq < end && eq+1 < len(s) && eq-i <= len(buf) && f.secretPair(buf[:copy(buf[:], s[i:eq])], query) {
			vend := eq + 1
			for vend < len(s) && s[vend] != '&' {
				vend++
			}
			if vend > eq+1 {
				out = append(out, s[last:eq+1]...)
				out = append(out, Redacted...)
				last, end = vend, vend
			}
		}
		i = end + 1
	}
	if out == nil {
		return s
	}
	return T(append(out, s[last:]...))
}

// secretPair reports whether a pair's raw name is f's or, in a query, a
// credential parameter. A bracketed name is the field its outer name
// holds too: variables[DEPLOY_KEY] is a member of variables, which a
// service whose variables are secret names.
func (f *Fields) secretPair(raw []byte, query bool) bool {
	name, outer := pairName(raw)
	return f.has(name) || f.has(outer) || query && lowerIn(queryParams, name)
}

// pairName is a form name decoded in place (%XX, + for a space), then the
// last name of a bracketed one, and its outer name (the whole name when
// it has no brackets).
func pairName(name []byte) (last, outer []byte) {
	n := 0
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c == '+':
			c = ' '
		case c == '%' && i+2 < len(name) && isHex(name[i+1]) && isHex(name[i+2]):
			c = unhex(name[i+1])<<4 | unhex(name[i+2])
			i += 2
		}
		name[n] = c
		n++
	}
	name = name[:n]
	outer = name
	if o := bytes.IndexByte(name, '['); o > 0 {
		outer = name[:o]
	}
	for bytes.HasSuffix(name, []byte("[]")) {
		name = name[:len(name)-2]
	}
	if bytes.HasSuffix(name, []byte("]")) {
		if o := bytes.LastIndexByte(name, '['); o >= 0 {
			name = name[o+1 : len(name)-1]
		}
	}
	return name, outer
}

func isHex(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c >= 'a':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}

// maskMultipart masks the content of the parts of a multipart body whose
// name is a field, up to the next delimiter or the end of body.
func (f *Fields) maskMultipart(body []byte, boundary string) []byte {
	delim := []byte("--" + boundary)
	var out []byte
	last := 0
	for i := 0; ; {
		d := bytes.Index(body[i:], delim)
		if d < 0 {
			break
		}
		hstart := i + d + len(delim)
		hend := bytes.Index(body[hstart:], []byte("\r\n\r\n"))
		if hend < 0 {
			break
		}
		content := hstart + hend + 4
		next := bytes.Index(body[content:], append([]byte("\r\n"), delim...))
		cend := len(body)
		if next >= 0 {
			cend = content + next
		}
		if name, outer := partName(body[hstart:content]); cend > content && (f.has(name) || f.has(outer)) {
			out = append(out, body[last:content]...)
			out = append(out, Redacted...)
			last = cend
		}
		if next < 0 {
			break
		}
		i = cend + 2
	}
	if out == nil {
		return body
	}
	return append(out, body[last:]...)
}

// partName is the name of a multipart part, from its headers, as
// pairName reads it.
func partName(headers []byte) (last, outer []byte) {
	for line := range strings.SplitSeq(string(headers), "\r\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok || !strings.EqualFold(strings.TrimSpace(k), "Content-Disposition") {
			continue
		}
		if _, params, err := mime.ParseMediaType(strings.TrimSpace(v)); err == nil {
			return pairName([]byte(params["name"]))
		}
	}
	return nil, nil
}
