//go:build !linux

package fakekit

import "net"

// listenAnyPort listens on a port the system picks (addr's port is 0). The
// Linux version avoids a slow search for a free port; elsewhere it is
// net.Listen.
func listenAnyPort(addr string) (net.Listener, error) { return net.Listen("tcp", addr) }
