// Package bodytext puts a kept body (a logged request's or answer's, a
// webhook delivery's payload) into JSON as the fakes' control API gives
// it: as text when it is UTF-8, else as base64, with a field beside it
// naming the encoding. A body cut at a bound may end inside a character,
// which makes it base64 even when the whole was text.
package bodytext

import (
	"encoding/base64"
	"fmt"
	"unicode/utf8"
)

// Base64 is the encoding of a body that is not UTF-8.
const Base64 = "base64"

// Encode is b as text, or as base64 and Base64 when it is not UTF-8.
func Encode(b []byte) (text, encoding string) {
	if utf8.Valid(b) {
		return string(b), ""
	}
	return base64.StdEncoding.EncodeToString(b), Base64
}

// Decode is what Encode's text and encoding were made from; an encoding
// other than "" and Base64 is an error.
func Decode(text, encoding string) ([]byte, error) {
	switch encoding {
	case "":
		if text == "" {
			return nil, nil
		}
		return []byte(text), nil
	case Base64:
		return base64.StdEncoding.DecodeString(text)
	}
	return nil, fmt.Errorf("unknown body encoding %q", encoding)
}
