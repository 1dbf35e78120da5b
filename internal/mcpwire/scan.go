package mcpwire

// A walk over the members of a JSON object that is already known to be
// valid JSON (json.Valid, or a value json.Unmarshal took apart), without
// decoding it into a map: the request envelope and the params on the
// gateway's side, the answer envelope on the client's. Whatever it cannot
// read plainly (a key written with an escape) it leaves to encoding/json,
// so that the results are those of the map it replaces. The walk itself
// is internal/jsonscan's.

import "github.com/apitwin/apitwin/internal/jsonscan"

// Members calls f with each member of the JSON object b, in order: its key
// as written between the quotes, and its value as written (no white space
// around it). b must be valid JSON. It reports false, having called f for
// none or some, when b is not an object, when a key is not plain (an
// escape, or a byte past ASCII: encoding/json must read it), or when f
// returns false.
func Members(b []byte, f func(key, value []byte) bool) bool {
	return jsonscan.Members(b, func(key, value []byte) bool { return plainKey(key) && f(key, value) })
}

// plainKey reports whether a key, as written, reads the same decoded: no
// escape, and ASCII (encoding/json would replace invalid UTF-8).
func plainKey(key []byte) bool {
	for _, c := range key {
		if c == '\\' || c >= 0x80 {
			return false
		}
	}
	return true
}

// PlainString is the text of the JSON string v when it is written plainly
// (no escape, valid UTF-8, so that encoding/json would read the same
// bytes), and false otherwise.
func PlainString(v []byte) ([]byte, bool) {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return nil, false
	}
	s := v[1 : len(v)-1]
	for _, c := range s {
		if c == '\\' || c >= 0x80 || c < 0x20 {
			return nil, false
		}
	}
	return s, true
}
