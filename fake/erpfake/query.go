package erpfake

import (
	"net/http"
	"strings"
)

// phpQuery is a query string read the way PHP fills $_GET, which is how
// the ERP sees its parameters: pairs split on &, a + is a space, a %XX
// with two hex digits is that byte, and a % that is not followed by two
// hex digits stays a % (curl users send sqlfilters such as
// (t.nom:like:'%acme%') without encoding them). Go's url.ParseQuery drops
// such a pair whole, which would silently drop a filter. When a name comes
// more than once, the last value wins, as in PHP.
//
// Get reads the raw string at each call rather than a map made once: a
// request reads a handful of names, and so costs no allocation unless a
// name or the value found is escaped.
type phpQuery string

// Get returns the value of name, "" when the query has none.
func (q phpQuery) Get(name string) string {
	found, last := false, ""
	for pair := range strings.SplitSeq(string(q), "&") {
		if pair == "" {
			continue
		}
		k, v, _ := strings.Cut(pair, "=")
		if k == name || strings.ContainsAny(k, "%+") && phpUnescape(k) == name {
			found, last = true, v
		}
	}
	if !found || name == "" {
		return ""
	}
	return phpUnescape(last)
}

// phpUnescape is PHP's urldecode: + is a space, %XX a byte, and any other
// % is kept as it is.
func phpUnescape(s string) string {
	if !strings.ContainsAny(s, "%+") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '+':
			b.WriteByte(' ')
		case c == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]):
			b.WriteByte(unhex(s[i+1])<<4 | unhex(s[i+2]))
			i += 2
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c <= 'F':
		return c - 'A' + 10
	}
	return c - 'a' + 10
}

// query is the request's query as the ERP reads it (see phpQuery).
func query(r *http.Request) phpQuery { return phpQuery(r.URL.RawQuery) }
