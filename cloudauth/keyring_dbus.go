//go:build unix && !darwin && !ios

package cloudauth

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// keyringProblem says why the Secret Service cannot be reached over a
// D-Bus session bus, or nil when a bus may be there. It looks where the
// D-Bus library would (DBUS_SESSION_BUS_ADDRESS, else the bus socket in
// the user's runtime directory) without starting a bus: the library's last
// resort, dbus-launch, needs an X display, prints its complaints, and can
// leave a daemon behind.
func keyringProblem(getenv func(string) string, uid int) error {
	addr := getenv("DBUS_SESSION_BUS_ADDRESS")
	if addr == "" {
		runtime := getenv("XDG_RUNTIME_DIR")
		if runtime == "" {
			runtime = "/run/user/" + strconv.Itoa(uid)
		}
		if _, err := os.Stat(filepath.Join(runtime, "bus")); err == nil {
			return nil
		}
		return &KeyringUnavailableError{Reason: "no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS is not set)"}
	}
	// An address is a list of transports; one plain socket path that is
	// missing is a bus that is not there.
	if !strings.Contains(addr, ";") {
		if rest, ok := strings.CutPrefix(addr, "unix:path="); ok {
			path, _, _ := strings.Cut(rest, ",")
			if _, err := os.Stat(path); err != nil {
				return &KeyringUnavailableError{Reason: "no D-Bus session bus at " + path}
			}
		}
	}
	return nil
}
