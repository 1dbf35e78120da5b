//go:build !unix || darwin || ios

package cloudauth

// keyringProblem: the macOS Keychain and the Windows Credential Manager
// need no bus; their own errors say what is wrong.
func keyringProblem(func(string) string, int) error { return nil }
