package mcpwire

import "io"

// AppendRead appends what r reads, to its end, to b, growing b only when
// it is full: no buffer lent by io.Copy, no copy out of one. Given a b made
// for a body's known size plus one byte (room for the read that meets the
// end), a body is read without growing b at all. The gateway reads request
// bodies so, the client answers.
func AppendRead(b []byte, r io.Reader) ([]byte, error) {
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
	}
}
