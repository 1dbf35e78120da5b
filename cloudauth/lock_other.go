//go:build !unix && !windows

package cloudauth

// tryLock takes no lock where the system offers no file lock (js, wasip1,
// plan9): updates there are atomic but not serialised.
func tryLock(string) (unlock func(), busy bool, err error) { return func() {}, false, nil }
