package mcp

// A walk over the members of a JSON object that is already known to be
// valid JSON (json.Valid, or a value json.Unmarshal took apart), without
// decoding it into a map: the request envelope, the params, the answer
// envelope. Whatever it cannot read plainly (a key written with an escape)
// it leaves to encoding/json, so that the results are those of the map it
// replaces.

// objectMembers calls f with each member of the JSON object b, in order:
// its key as written between the quotes, and its value as written (no
// white space around it). b must be valid JSON. It reports false, having
// called f for none or some, when b is not an object, when a key is not
// plain (an escape, or a byte past ASCII: encoding/json must read it), or
// when f returns false.
func objectMembers(b []byte, f func(key, value []byte) bool) bool {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return false
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return true
	}
	for i < len(b) {
		if b[i] != '"' {
			return false
		}
		end := stringEnd(b, i)
		key := b[i+1 : end-1]
		if !plainKey(key) {
			return false
		}
		i = skipSpace(b, end)
		if i >= len(b) || b[i] != ':' {
			return false
		}
		i = skipSpace(b, i+1)
		vend := valueEnd(b, i)
		if vend == i || !f(key, b[i:vend]) {
			return false
		}
		i = skipSpace(b, vend)
		if i >= len(b) {
			return false
		}
		switch b[i] {
		case '}':
			return true
		case ',':
			i = skipSpace(b, i+1)
		default:
			return false
		}
	}
	return false
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

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}

// stringEnd is the index after the closing quote of the string at b[i].
func stringEnd(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(b)
}

// valueEnd is the index after the valid JSON value at b[i].
func valueEnd(b []byte, i int) int {
	if i >= len(b) {
		return i
	}
	switch b[i] {
	case '"':
		return stringEnd(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				j = stringEnd(b, j) - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return len(b)
	}
	j := i
	for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ' ' && b[j] != '\t' && b[j] != '\r' && b[j] != '\n' {
		j++
	}
	return j
}

// plainString is the text of the JSON string v when it is written plainly
// (no escape, valid UTF-8, so that encoding/json would read the same
// bytes), and false otherwise.
func plainString(v []byte) ([]byte, bool) {
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
