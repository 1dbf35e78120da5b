package redistest

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// EnvClusterAddrs names the nodes of a running Redis Cluster to use
// (host:port, comma-separated, masters), as CI starts one (.ci/run).
const EnvClusterAddrs = "MCP_TEST_REDIS_CLUSTER"

// ClusterMasters is how many masters a cluster this package starts has.
const ClusterMasters = 3

// clusterSlots is the number of hash slots of Redis Cluster.
const clusterSlots = 16384

var (
	clusterOnce    sync.Once
	clusterAddrs   []string
	clusterSkip    string
	clusterFailure error
	clusterNodes   []*child // the nodes this binary started, stopped by Main
)

// ClusterAddrs returns the nodes of a Redis Cluster of three masters for t,
// in this order of preference: those in MCP_TEST_REDIS_CLUSTER; else, when
// redis-server is on PATH, a cluster this test binary starts on free
// loopback ports the first time a test asks, shared with every later test
// of the binary and stopped by Main; else nothing: t is skipped, or failed
// when APITWIN_REQUIRE_REDIS is 1. Tests share it as they share Addr's
// server: each keeps to its own key prefix.
func ClusterAddrs(t testing.TB) []string {
	t.Helper()
	clusterOnce.Do(setupCluster)
	endUnlessThere(t, clusterFailure, clusterSkip, EnvClusterAddrs)
	return clusterAddrs
}

func setupCluster() {
	if v := os.Getenv(EnvClusterAddrs); v != "" {
		for _, a := range strings.Split(v, ",") {
			if a = strings.TrimSpace(a); a != "" {
				clusterAddrs = append(clusterAddrs, a)
			}
		}
		for _, a := range clusterAddrs {
			if err := clusterOK(a); err != nil {
				clusterFailure = fmt.Errorf("%s=%s: %w", EnvClusterAddrs, v, err)
				return
			}
		}
		return
	}
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		clusterSkip = "no Redis Cluster: " + EnvClusterAddrs + " is not set and redis-server is not on PATH"
		return
	}
	if !inMain.Load() {
		clusterFailure = errors.New("starting a cluster needs redistest.Main to stop it: add func TestMain(m *testing.M) { redistest.Main(m) } to the package's tests")
		return
	}
	clusterAddrs, clusterNodes, clusterFailure = startCluster(bin)
}

// Cluster is a Redis Cluster of one test's own (see StartCluster).
type Cluster struct {
	addrs []string
	mu    sync.Mutex
	nodes []*child // nil once stopped
}

// StartCluster runs a Redis Cluster of three masters and no replicas for t
// alone, on free loopback ports, empty and saving nothing, and stops it
// when t ends. The test may stop a node (Stop) to see what a failed master
// does. It needs redis-server on PATH: without it t is skipped, or failed
// when APITWIN_REQUIRE_REDIS is 1.
func StartCluster(t testing.TB) *Cluster {
	t.Helper()
	addrs, nodes, err := startCluster(serverBin(t, "a cluster of the test's own"))
	if err != nil {
		t.Fatalf("redistest: %v", err)
	}
	c := &Cluster{addrs: addrs, nodes: nodes}
	t.Cleanup(func() {
		for i := range c.addrs {
			c.Stop(i)
		}
	})
	return c
}

// Addrs are the masters' host:port.
func (c *Cluster) Addrs() []string { return c.addrs }

// Stop ends node i (SIGKILL). Stopping a stopped node does nothing.
func (c *Cluster) Stop(i int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.nodes[i] != nil {
		c.nodes[i].stop()
		c.nodes[i] = nil
	}
}

// NodeOf returns the index of the master that serves key.
func (c *Cluster) NodeOf(key string) int {
	slot := Slot(key)
	for i := range c.addrs {
		if slot >= i*clusterSlots/len(c.addrs) && slot < (i+1)*clusterSlots/len(c.addrs) {
			return i
		}
	}
	return -1
}

// startCluster starts three cluster-enabled servers, gives each a third of
// the slots, introduces them and waits until each says the cluster is ok.
func startCluster(bin string) ([]string, []*child, error) {
	var addrs []string
	var nodes []*child
	fail := func(err error) ([]string, []*child, error) {
		for _, n := range nodes {
			n.stop()
		}
		return nil, nil, err
	}
	for i := range ClusterMasters {
		var err error
		for range 3 { // a free port can be taken between the probe and the bind
			var port int
			if port, err = freePort(); err != nil {
				continue
			}
			// The cluster bus listens on port+10000: it must be free too.
			if l, lerr := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port+10000))); lerr != nil {
				err = lerr
				continue
			} else {
				l.Close()
			}
			var a string
			var c *child
			a, c, err = startOn(bin, port, "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
				"--cluster-node-timeout", "1000", "--cluster-require-full-coverage", "yes")
			if err == nil {
				addrs, nodes = append(addrs, a), append(nodes, c)
				break
			}
		}
		if err != nil {
			return fail(fmt.Errorf("starting cluster node %d: %w", i, err))
		}
	}
	for i, a := range addrs {
		lo, hi := i*clusterSlots/len(addrs), (i+1)*clusterSlots/len(addrs)-1
		if _, err := command(a, "CLUSTER", "ADDSLOTSRANGE", strconv.Itoa(lo), strconv.Itoa(hi)); err != nil {
			return fail(fmt.Errorf("%s: CLUSTER ADDSLOTSRANGE: %w", a, err))
		}
		if i == 0 {
			continue
		}
		host, port, _ := net.SplitHostPort(addrs[0])
		if _, err := command(a, "CLUSTER", "MEET", host, port); err != nil {
			return fail(fmt.Errorf("%s: CLUSTER MEET: %w", a, err))
		}
	}
	deadline := time.Now().Add(startTimeout)
	for _, a := range addrs {
		for {
			err := clusterOK(a)
			if err == nil {
				break
			}
			if time.Now().After(deadline) {
				return fail(fmt.Errorf("the cluster did not form within %s: %w", startTimeout, err))
			}
			time.Sleep(20 * time.Millisecond) // polling a process outside the test's control
		}
	}
	return addrs, nodes, nil
}

// clusterOK checks that the node at addr says the cluster is ok and knows
// every master.
func clusterOK(addr string) error {
	info, err := command(addr, "CLUSTER", "INFO")
	if err != nil {
		return err
	}
	if !strings.Contains(info, "cluster_state:ok") {
		return fmt.Errorf("%s: cluster state is not ok", addr)
	}
	if !strings.Contains(info, "cluster_known_nodes:"+strconv.Itoa(ClusterMasters)) &&
		os.Getenv(EnvClusterAddrs) == "" {
		return fmt.Errorf("%s: not every node is known yet", addr)
	}
	return nil
}

// command sends one command over a plain connection and returns its reply
// (a simple or bulk string, or an integer as text); an error reply is an
// error.
func command(addr string, args ...string) (string, error) {
	conn, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return "", err
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(2 * time.Second))
	var b strings.Builder
	fmt.Fprintf(&b, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
	}
	if _, err := io.WriteString(conn, b.String()); err != nil {
		return "", err
	}
	r := bufio.NewReader(conn)
	line, err := r.ReadString('\n')
	if err != nil {
		return "", err
	}
	line = strings.TrimRight(line, "\r\n")
	if line == "" {
		return "", errors.New("empty reply")
	}
	switch line[0] {
	case '+', ':':
		return line[1:], nil
	case '-':
		return "", errors.New(line[1:])
	case '$':
		n, err := strconv.Atoi(line[1:])
		if err != nil || n < 0 {
			return "", fmt.Errorf("reply %q", line)
		}
		buf := make([]byte, n+2)
		if _, err := io.ReadFull(r, buf); err != nil {
			return "", err
		}
		return string(buf[:n]), nil
	}
	return "", fmt.Errorf("reply %q", line)
}

// Slot is Redis Cluster's hash slot of key: CRC16 of the key, or of its
// hash tag (the part between the first "{" and the next "}", when not
// empty), modulo 16384.
func Slot(key string) int {
	if i := strings.IndexByte(key, '{'); i >= 0 {
		if j := strings.IndexByte(key[i+1:], '}'); j > 0 {
			key = key[i+1 : i+1+j]
		}
	}
	var crc uint16
	for k := 0; k < len(key); k++ {
		crc ^= uint16(key[k]) << 8
		for range 8 {
			if crc&0x8000 != 0 {
				crc = crc<<1 ^ 0x1021
			} else {
				crc <<= 1
			}
		}
	}
	return int(crc) % clusterSlots
}
