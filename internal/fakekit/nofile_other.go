//go:build !unix

package fakekit

// openFileLimit reports that the limit on open files is unknown here.
func openFileLimit() (uint64, bool) { return 0, false }
