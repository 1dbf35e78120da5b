package orchfake

import "testing"

// newTestServer is a fake made with opts for a test of the package's insides,
// closed when the test ends.
func newTestServer(t *testing.T, opts ...Option) *Server {
	t.Helper()
	s, err := New(opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}
