// Package jsonscan walks JSON text that is already known to be valid (by
// json.Valid, or because json.Unmarshal has just taken it apart) without
// decoding it: where a value ends, and the members of an object or the
// elements of an array as the bytes they are written with. The clients use
// it to read a few members of a large answer, or the members a struct does
// not name, without a map of them.
//
// On text that is not valid JSON the functions stop early or return
// positions that mean nothing, but never read out of bounds or loop.
package jsonscan

// SkipSpace returns the index of the first byte at or after i that is not
// JSON white space (len(b) when there is none).
func SkipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// StringEnd returns the index after the closing quote of the string whose
// opening quote is b[i], or len(b) when it is unterminated.
func StringEnd(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(b)
}

// ValueEnd returns the index after the value that starts at b[i] (i itself
// when i is past the end).
func ValueEnd(b []byte, i int) int {
	if i >= len(b) {
		return i
	}
	switch b[i] {
	case '"':
		return StringEnd(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				i = StringEnd(b, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return len(b)
	}
	for i < len(b) && !isDelimiter(b[i]) {
		i++
	}
	return i
}

// isDelimiter reports whether c ends a number or a literal.
func isDelimiter(c byte) bool {
	switch c {
	case ',', '}', ']', ' ', '\t', '\r', '\n':
		return true
	}
	return false
}

// Members calls f with each member of the object b, in order: its key as
// written between the quotes (escapes left as they are: a key with a
// backslash, or bytes past ASCII, is the caller's to decode), and its value
// as written, without the white space around it. It reports whether it
// walked the whole object: false when b is not an object or f returned
// false.
func Members(b []byte, f func(key, value []byte) bool) bool {
	i := SkipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return false
	}
	i = SkipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return true
	}
	for i < len(b) && b[i] == '"' {
		end := StringEnd(b, i)
		if end < i+2 || b[end-1] != '"' {
			return false // unterminated
		}
		key := b[i+1 : end-1]
		i = SkipSpace(b, end)
		if i >= len(b) || b[i] != ':' {
			return false
		}
		i = SkipSpace(b, i+1)
		vend := ValueEnd(b, i)
		if vend <= i || !f(key, b[i:vend]) {
			return false
		}
		var closed, ok bool
		if i, closed, ok = next(b, vend, '}'); !ok || closed {
			return ok
		}
	}
	return false
}

// Elements calls f with each element of the array b, in order, as written.
// It reports whether it walked the whole array: false when b is not an
// array or f returned false.
func Elements(b []byte, f func(i int, value []byte) bool) bool {
	i := SkipSpace(b, 0)
	if i >= len(b) || b[i] != '[' {
		return false
	}
	i = SkipSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		return true
	}
	for n := 0; i < len(b); n++ {
		end := ValueEnd(b, i)
		if end <= i || !f(n, b[i:end]) {
			return false
		}
		var closed, ok bool
		if i, closed, ok = next(b, end, ']'); !ok || closed {
			return ok
		}
	}
	return false
}

// next reads what follows a member or element that ends at i: closer,
// which closes the object or array (closed), or a comma, after which the
// next one starts at the index it returns. ok is false for anything else.
func next(b []byte, i int, closer byte) (at int, closed, ok bool) {
	i = SkipSpace(b, i)
	switch {
	case i >= len(b):
		return i, false, false
	case b[i] == closer:
		return i, true, true
	case b[i] == ',':
		return SkipSpace(b, i+1), false, true
	}
	return i, false, false
}
