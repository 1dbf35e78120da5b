package redistest_test

import (
	"bufio"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apitwin/apitwin/internal/redistest"
)

func TestMain(m *testing.M) { redistest.Main(m) }

// Addr gives a server that answers, the same one to every test.
func TestAddr(t *testing.T) {
	a := redistest.Addr(t)
	if b := redistest.Addr(t); b != a {
		t.Errorf("second Addr %q, first %q: not shared", b, a)
	}
	conn, err := net.DialTimeout("tcp", a, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(time.Second))
	if _, err := conn.Write([]byte("PING\r\n")); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(conn).ReadString('\n')
	if err != nil || line != "+PONG\r\n" {
		t.Fatalf("PING: %q %v", line, err)
	}
}

// A server of the test's own can be stopped, and comes back empty on the
// same address.
func TestStart(t *testing.T) {
	t.Parallel()
	s := redistest.Start(t)
	if s.Addr() == redistest.Addr(t) {
		t.Fatalf("Start gave the shared server %s", s.Addr())
	}
	if got := send(t, s.Addr(), "SET k v"); got != "+OK\r\n" {
		t.Fatalf("SET: %q", got)
	}
	s.Stop()
	if conn, err := net.DialTimeout("tcp", s.Addr(), time.Second); err == nil {
		conn.Close()
		t.Fatal("a stopped server still takes connections")
	}
	s.Restart()
	if got := send(t, s.Addr(), "GET k"); got != "$-1\r\n" {
		t.Errorf("GET after the restart: %q, want nothing ($-1)", got)
	}
}

// send sends one inline command and returns the first line of the answer.
func send(t *testing.T, addr, cmd string) string {
	t.Helper()
	conn, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := conn.Write([]byte(cmd + "\r\n")); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(conn).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	return line
}

// ClusterAddrs gives the nodes of a cluster that is ok, the same to every
// test; a key's slot is where the cluster says it is.
func TestClusterAddrs(t *testing.T) {
	t.Parallel()
	a := redistest.ClusterAddrs(t)
	if b := redistest.ClusterAddrs(t); len(a) == 0 || len(b) != len(a) || b[0] != a[0] {
		t.Fatalf("ClusterAddrs %v, then %v", a, b)
	}
	conn, err := net.DialTimeout("tcp", a[0], time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(time.Second))
	for key, want := range map[string]string{"apitwin": ":", "{apitwin}:rl:x": ":"} {
		cmd := "*3\r\n$7\r\nCLUSTER\r\n$7\r\nKEYSLOT\r\n$" + strconv.Itoa(len(key)) + "\r\n" + key + "\r\n"
		if _, err := conn.Write([]byte(cmd)); err != nil {
			t.Fatal(err)
		}
		line, err := bufio.NewReader(conn).ReadString('\n')
		if err != nil || !strings.HasPrefix(line, want) {
			t.Fatalf("CLUSTER KEYSLOT %s: %q %v", key, line, err)
		}
		if got := strings.TrimSpace(line[1:]); got != strconv.Itoa(redistest.Slot(key)) {
			t.Errorf("slot of %q: the cluster says %s, Slot %d", key, got, redistest.Slot(key))
		}
	}
}
