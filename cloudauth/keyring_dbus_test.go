//go:build unix && !darwin && !ios

package cloudauth

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestKeyringProblem(t *testing.T) {
	t.Parallel()
	runtime := t.TempDir()
	sock := filepath.Join(runtime, "bus")
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	for name, tc := range map[string]struct {
		env    map[string]string
		bus    bool
		reason string
	}{
		"nothing":                {env: map[string]string{"XDG_RUNTIME_DIR": runtime}, reason: "no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS is not set)"},
		"a bus in the runtime":   {env: map[string]string{"XDG_RUNTIME_DIR": runtime}, bus: true},
		"an address":             {env: map[string]string{"DBUS_SESSION_BUS_ADDRESS": "unix:abstract=/tmp/dbus-x"}},
		"a socket that is there": {env: map[string]string{"DBUS_SESSION_BUS_ADDRESS": "unix:path=" + sock + ",guid=1"}, bus: true},
		"a socket that is not":   {env: map[string]string{"DBUS_SESSION_BUS_ADDRESS": "unix:path=" + sock}, reason: "no D-Bus session bus at " + sock},
	} {
		os.Remove(sock)
		if tc.bus {
			os.WriteFile(sock, nil, 0o600)
		}
		err := keyringProblem(env(tc.env), 1<<30)
		var ku *KeyringUnavailableError
		switch {
		case tc.reason == "" && err != nil:
			t.Errorf("%s: %v", name, err)
		case tc.reason != "" && (!errors.As(err, &ku) || ku.Reason != tc.reason || !errors.Is(err, ErrNoKeyring) ||
			err.Error() != "no keyring available: "+tc.reason):
			t.Errorf("%s: %v", name, err)
		}
	}
}
