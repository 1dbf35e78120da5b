package main

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/apitwin/apitwin/clock"
	"github.com/apitwin/apitwin/internal/fakekit"
	"github.com/apitwin/apitwin/mcp/gateway"
	"github.com/apitwin/apitwin/mcp/mcpredis"
)

// The program's own paths on the gateway's listener.
const (
	healthzPath = "/healthz"
	readyzPath  = "/readyz"
)

// probeTimeout bounds asking the shared store, for /readyz and /metrics.
const probeTimeout = 2 * time.Second

// maxRequestIDLen bounds the X-Request-Id value logged.
const maxRequestIDLen = 128

// app is one running gateway: its settings, the gateway, the shared store
// if any, and what it counts.
type app struct {
	s     *settings
	gw    *gateway.Gateway
	store *mcpredis.Store // nil without Redis
	log   *slog.Logger
	clk   clock.Clock // times timeouts.shutdown_delay (nil: the real clock)

	stopping  atomic.Bool // set when the process is told to stop: /readyz says 503
	inFlight  atomic.Int64
	durations histogram
}

// newApp makes the gateway of s, on Redis when s names it.
func newApp(s *settings, log *slog.Logger) (*app, error) {
	a := &app{s: s, log: log}
	cfg := s.Gateway
	cfg.Logger = log.With("component", "gateway")
	if s.Redis.Address != "" || len(s.Redis.Cluster) > 0 {
		// go-redis logs (every failed dial, say) with the standard logger;
		// they become debug lines of this log, the gateway's own warnings
		// saying what matters once. The logger is process-wide: the last
		// run's (one, but for tests).
		redis.SetLogger(redisLog{log.With("component", "redis")})
		o := mcpredis.Options{Password: s.Redis.Password, DB: s.Redis.DB, Prefix: s.Redis.Prefix}
		if len(s.Redis.Cluster) > 0 {
			st, err := mcpredis.OpenCluster(s.Redis.Cluster, o) // checked with the settings
			if err != nil {
				return nil, err
			}
			a.store = st
		} else {
			a.store = mcpredis.Open(s.Redis.Address, o)
		}
		cfg.Store = a.store
	}
	gw, err := gateway.New(cfg)
	if err != nil {
		a.closeStore()
		return nil, err
	}
	a.gw = gw
	return a, nil
}

// redisLog is go-redis's logging on slog.
type redisLog struct{ log *slog.Logger }

func (r redisLog) Printf(ctx context.Context, format string, v ...any) {
	r.log.DebugContext(ctx, fmt.Sprintf(format, v...))
}

func (a *app) closeStore() {
	if a.store == nil {
		return
	}
	if err := a.store.Close(); err != nil {
		a.log.Warn("closing the Redis client failed", "error", err)
	}
}

// handler is what the gateway's listener serves: the probes, and the
// gateway for everything else (it answers 404 off its path), with a log
// line per request.
func (a *app) handler() http.Handler {
	// A request still running at nine tenths of the write timeout is
	// cancelled, so that its answer (an error) can still be written.
	requestTimeout := a.s.Timeouts.Write - a.s.Timeouts.Write/10
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &recorder{ResponseWriter: w}
		level := slog.LevelInfo
		switch r.URL.Path {
		case healthzPath:
			level = slog.LevelDebug
			a.healthz(rec, r)
		case readyzPath:
			level = slog.LevelDebug
			a.readyz(rec, r)
		default:
			a.inFlight.Add(1)
			ctx, cancel := context.WithTimeout(r.Context(), requestTimeout)
			a.gw.ServeHTTP(rec, r.WithContext(ctx))
			cancel()
			a.inFlight.Add(-1)
			if r.URL.Path == a.s.path {
				a.durations.observe(rec.code(), time.Since(start))
			}
		}
		a.logRequest(r, rec, start, level)
	})
}

// logRequest writes the request's log line: never a header's value other
// than X-Request-Id, so no token or signature reaches the log.
func (a *app) logRequest(r *http.Request, rec *recorder, start time.Time, level slog.Level) {
	ctx := r.Context()
	if !a.log.Enabled(ctx, level) {
		return
	}
	attrs := []slog.Attr{
		slog.String("method", r.Method),
		slog.String("path", r.URL.Path),
		slog.Int("status", rec.code()),
		slog.Float64("duration_ms", float64(time.Since(start).Microseconds())/1000),
		slog.Int64("bytes", rec.bytes),
		slog.String("remote", r.RemoteAddr),
	}
	// Behind a trusted proxy RemoteAddr is the proxy's: log the caller the
	// access lists judged too.
	if client, ok := a.gw.ClientAddr(r); ok && client.String() != remoteHost(r.RemoteAddr) {
		attrs = append(attrs, slog.String("client", client.String()))
	}
	if id := r.Header.Get("X-Request-Id"); id != "" {
		if len(id) > maxRequestIDLen {
			id = id[:maxRequestIDLen]
		}
		attrs = append(attrs, slog.String("request_id", id))
	}
	a.log.LogAttrs(ctx, level, "request", attrs...)
}

// healthz answers 200 while the process runs.
func (a *app) healthz(w http.ResponseWriter, r *http.Request) {
	if !getOrHead(w, r) {
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	io.WriteString(w, "ok\n")
}

// readyz answers 200 {"status":"ready"}, or 200 {"status":"degraded",
// "reason":...} while the shared store cannot be reached (the gateway
// serves from memory meanwhile, so the replica stays in service), and 503
// {"status":"stopping"} once the process has been told to stop.
func (a *app) readyz(w http.ResponseWriter, r *http.Request) {
	if !getOrHead(w, r) {
		return
	}
	if a.stopping.Load() {
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "stopping"})
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), probeTimeout)
	defer cancel()
	if err := a.gw.Ready(ctx); err != nil {
		writeJSON(w, http.StatusOK, map[string]string{"status": "degraded", "reason": err.Error()})
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"status": "ready"})
}

func getOrHead(w http.ResponseWriter, r *http.Request) bool {
	if r.Method == http.MethodGet || r.Method == http.MethodHead {
		return true
	}
	w.Header().Set("Allow", "GET, HEAD")
	http.Error(w, "GET only", http.StatusMethodNotAllowed)
	return false
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, _ := json.Marshal(v) // maps of strings: cannot fail
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}

// recorder notes the status and size of an answer for the log and the
// metrics. It passes Flush on, and Unwrap lets http.ResponseController
// reach the connection's writer.
type recorder struct {
	http.ResponseWriter
	status int
	bytes  int64
}

func (r *recorder) WriteHeader(code int) {
	if r.status == 0 && code >= 200 {
		r.status = code
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *recorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	n, err := r.ResponseWriter.Write(b)
	r.bytes += int64(n)
	return n, err
}

func (r *recorder) Flush() {
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		if r.status == 0 {
			r.status = http.StatusOK
		}
		f.Flush()
	}
}

func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// code is the status written, 200 when the handler wrote none.
func (r *recorder) code() int {
	if r.status == 0 {
		return http.StatusOK
	}
	return r.status
}

// listeners are the bound sockets of a run.
type listeners struct {
	main, metrics net.Listener // metrics nil when off
}

// listen binds the gateway's address and the metrics address, so that
// ports are known (and taken) before anything is printed.
func (s *settings) listen() (*listeners, error) {
	var l listeners
	var err error
	if l.main, err = net.Listen("tcp", s.Listen); err != nil {
		return nil, fmt.Errorf("listen %s: %w", s.Listen, err)
	}
	if s.MetricsListen != "" {
		if l.metrics, err = net.Listen("tcp", s.MetricsListen); err != nil {
			l.main.Close()
			return nil, fmt.Errorf("metrics_listen %s: %w", s.MetricsListen, err)
		}
	}
	return &l, nil
}

// close closes the sockets of a run that will not serve.
func (l *listeners) close() {
	l.main.Close()
	if l.metrics != nil {
		l.metrics.Close()
	}
}

// urls are the addresses printed on start.
func (s *settings) urls(l *listeners) (gateway, metrics string) {
	scheme := "http"
	if s.cert != nil {
		scheme = "https"
	}
	gateway = scheme + "://" + l.main.Addr().String() + s.path
	if l.metrics != nil {
		metrics = "http://" + l.metrics.Addr().String() + "/metrics"
	}
	return gateway, metrics
}

// newServer is an http.Server with the configured timeouts, its errors
// logged as warnings.
func (a *app) newServer(h http.Handler) *http.Server {
	t := a.s.Timeouts
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: t.ReadHeader,
		ReadTimeout:       t.Read,
		WriteTimeout:      t.Write,
		IdleTimeout:       t.Idle,
		MaxHeaderBytes:    maxHeaderBytes,
		ErrorLog:          slog.NewLogLogger(a.log.Handler(), slog.LevelWarn),
	}
}

// serve serves on l until ctx ends, then stops: /readyz answers 503, after
// timeouts.shutdown_delay the listener closes, requests running get
// timeouts.shutdown to finish, and the Redis client closes. It returns the
// exit code: 0 for a clean stop, 1 when a server failed or requests had to
// be cut off.
func (a *app) serve(ctx context.Context, l *listeners) int {
	main := a.newServer(a.handler())
	var metrics *http.Server
	failed := make(chan error, 2)
	// Each listener holds at most max_connections connections, so that
	// neither can take all the process's file descriptors. Over plain
	// HTTP each connection's requests are followed on the wire: ambiguous
	// framing (Content-Length with Transfer-Encoding) and more than
	// fakekit.MaxHeaderFields header fields are refused with 400 before
	// net/http parses them. Over TLS the limit is under the TLS listener
	// ServeTLS adds, and framing is net/http's own.
	mainL := fakekit.LimitListener(l.main, a.s.MaxConnections)
	if a.s.cert != nil {
		// ServeTLS with the certificate in TLSConfig: HTTP/2 and HTTP/1.1
		// are offered as usual.
		main.TLSConfig = &tls.Config{Certificates: []tls.Certificate{*a.s.cert}, MinVersion: tls.VersionTLS12}
		go func() { failed <- fmt.Errorf("gateway listener: %w", main.ServeTLS(mainL, "", "")) }()
	} else {
		go func() { failed <- fmt.Errorf("gateway listener: %w", main.Serve(fakekit.HTTP1Listener(mainL, 0))) }()
	}
	if l.metrics != nil {
		metrics = a.newServer(a.metricsHandler())
		ml := fakekit.HTTP1Listener(fakekit.LimitListener(l.metrics, a.s.MaxConnections), 0)
		go func() { failed <- fmt.Errorf("metrics listener: %w", metrics.Serve(ml)) }()
	}

	code := 0
	select {
	case <-ctx.Done():
	case err := <-failed:
		a.log.Error("serving failed; stopping", "error", err)
		code = 1
	}
	a.stopping.Store(true)
	t := a.s.Timeouts
	a.log.Info("shutting down", "delay", t.ShutdownDelay.String(), "timeout", t.Shutdown.String())
	if t.ShutdownDelay > 0 && code == 0 {
		// Load balancers polling /readyz see 503 and stop sending new
		// requests before the listener closes.
		clk := a.clk
		if clk == nil {
			clk = clock.Real()
		}
		clk.Sleep(context.Background(), t.ShutdownDelay)
	}
	sctx, cancel := context.WithTimeout(context.Background(), t.Shutdown)
	defer cancel()
	if err := main.Shutdown(sctx); err != nil {
		a.log.Error("requests still running at the end of timeouts.shutdown were cut off", "error", err)
		main.Close()
		code = 1
	}
	if metrics != nil {
		if err := metrics.Shutdown(sctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
			a.log.Warn("stopping the metrics listener", "error", err)
		}
		metrics.Close()
	}
	a.closeStore()
	a.log.Info("stopped", "exit_code", code)
	return code
}

// remoteHost is RemoteAddr without its port.
func remoteHost(remote string) string {
	if host, _, err := net.SplitHostPort(remote); err == nil {
		return host
	}
	return remote
}
