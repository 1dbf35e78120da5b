// Package jsonw is what the encoders internal/cmd/jsongen generates from the
// fakes' answer structs stand on, and the scalars that write themselves
// with them: JSON strings escaped exactly as encoding/json escapes them
// (and as protojson does: Proto), times in GitLab's layout, arrays of
// items. Nothing here knows an answer's shape: those are the fakes'
// tagged structs.
package jsonw

import (
	"iter"
	"unicode/utf8"
)

// AppendString appends s as a JSON string escaped exactly as encoding/json
// escapes it: ", \ and control characters (\n, \r, \t, \b, \f by name, the
// others as \u00XX), HTML's <, > and & as \u003c, \u003e and \u0026,
// U+2028 and U+2029, and each byte of invalid UTF-8 as \ufffd.
func AppendString(b []byte, s string) []byte {
	b = append(b, '"')
	b = AppendEscaped(b, s)
	return append(b, '"')
}

const hexDigits = "0123456789abcdef"

// jsonSafe tells the ASCII bytes a JSON string holds as they are: not
// control characters, quotes, backslashes, nor HTML's <, > and &.
var jsonSafe = func() (safe [utf8.RuneSelf]bool) {
	for c := byte(0x20); c < utf8.RuneSelf; c++ {
		safe[c] = c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return safe
}()

// Plain reports whether s is printable ASCII that a JSON string holds as
// it is (AppendEscaped appends s unchanged), as URLs and paths mostly are:
// a caller that writes s often can then keep it rather than an escaped
// copy.
func Plain(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= utf8.RuneSelf || !jsonSafe[c] {
			return false
		}
	}
	return true
}

// AppendEscaped appends the inside of s as a JSON string (encoding/json's
// appendString with HTML escaping, without the quotes).
//
// A string written in pieces escapes as the whole would whenever every
// boundary between two pieces has an ASCII byte on at least one side (a
// literal "/" between two paths, a number after a URL): UTF-8 decoding
// never reads across such a boundary. Callers joining strings keep to
// that.
func AppendEscaped(b []byte, s string) []byte {
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if jsonSafe[c] {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i++
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	return append(b, s[start:]...)
}

// AppendArray appends items as a JSON array, each written by f (a
// generated appendJSON behind a view, typically).
func AppendArray[T any](b []byte, items []T, f func([]byte, T) []byte) []byte {
	b = append(b, '[')
	for i, it := range items {
		if i > 0 {
			b = append(b, ',')
		}
		b = f(b, it)
	}
	return append(b, ']')
}

// AppendJoined appends the inside of the JSON string that parts joined
// make; see AppendEscaped for the boundaries this allows.
func AppendJoined(b []byte, parts []string) []byte {
	for _, s := range parts {
		b = AppendEscaped(b, s)
	}
	return b
}

// AppendSeq appends the items of seq as a JSON array, each written by f,
// for lists that yield their items rather than hold them.
func AppendSeq[T any](b []byte, seq iter.Seq[T], f func([]byte, T) []byte) []byte {
	b = append(b, '[')
	first := true
	for it := range seq {
		if !first {
			b = append(b, ',')
		}
		first = false
		b = f(b, it)
	}
	return append(b, ']')
}
