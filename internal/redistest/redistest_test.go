package redistest_test

import (
	"bufio"
	"net"
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
