package visibility

import "fmt"

// SyntaxError is every error [Parse] returns: a malformed query, an
// unknown attribute, an operator the attribute's type does not allow, a
// literal of the wrong type, or a query past the limits.
//
// Pos is a 0-based byte offset into the query string: the first byte of
// the token at fault, or len(query) when the query ends too early. Msg
// says what is wrong, without the position. Error() gives both, as in
// `invalid query: unexpected token "AND" at position 17`; the fake
// answers it as INVALID_ARGUMENT with that text.
type SyntaxError struct {
	Pos int
	Msg string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("invalid query: %s at position %d", e.Msg, e.Pos)
}

func errorf(pos int, format string, args ...any) *SyntaxError {
	return &SyntaxError{Pos: pos, Msg: fmt.Sprintf(format, args...)}
}
