package erp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"sync"
	"testing"

	"github.com/apitwin/apitwin/apicall"
	"github.com/apitwin/apitwin/erp"
	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/fake/erpfake"
	"github.com/apitwin/apitwin/internal/leaktest"
)

// TestAPIKeyNeverInErrorChains: with an API key, in its header or as a
// bearer token, however a call fails (a transport error quoting the
// headers, an error answer or page echoing the key, an answer whose
// decoding quotes it, a redirect loop through a URL holding it), neither
// the error, nor any error it wraps, nor the *Error's body, nor what the
// hook and the logger saw shows the key.
func TestAPIKeyNeverInErrorChains(t *testing.T) {
	t.Parallel()
	route := "GET /api/index.php/users/{id}"
	jsonFault := func(status int, msg string) control.Fault {
		body, _ := json.Marshal(map[string]any{"error": map[string]any{"code": status, "message": msg, "0": msg}})
		return control.Fault{Status: status, Body: string(body), Header: http.Header{"Content-Type": {"application/json"}}, Times: 1}
	}
	for _, tc := range []struct {
		name string
		fail func(srv *erpfake.Server, tap *sessionTap, key string)
		is   error
	}{
		{"transport error quoting the headers", func(_ *erpfake.Server, tap *sessionTap, _ string) { tap.fail(true) }, nil},
		{"400 quoting the key", func(srv *erpfake.Server, _ *sessionTap, key string) {
			srv.InjectFault(route, jsonFault(400, "Bad Request: key "+key+" "+url.QueryEscape(key)))
		}, erp.ErrBadRequest},
		{"500 quoting the key", func(srv *erpfake.Server, _ *sessionTap, key string) {
			srv.InjectFault(route, jsonFault(500, "Internal Server Error: key "+key))
		}, erp.ErrServer},
		{"403 page quoting the key", func(srv *erpfake.Server, _ *sessionTap, key string) {
			srv.InjectFault(route, control.Fault{Status: 403, Times: 1, Header: http.Header{"Content-Type": {"text/html"}},
				Body: "<html><body><p>Forbidden for " + erp.APIKeyHeader + ": " + key + "</p></body></html>"})
		}, erp.ErrForbidden},
		{"answer that does not decode", func(srv *erpfake.Server, _ *sessionTap, key string) {
			srv.InjectFault(route, control.Fault{Status: 200, Times: 1, Header: http.Header{"Content-Type": {"application/json"}},
				Body: `{"id":"` + key + `","login":"admin"}`})
		}, nil},
		{"redirect loop through the key", func(srv *erpfake.Server, _ *sessionTap, key string) {
			srv.InjectFault(route, control.Fault{Status: 302, Times: 11, Body: " ", Header: http.Header{"Location": {erp.APIPath + "/users/1?k=" + url.QueryEscape(key)}}})
		}, nil},
	} {
		for _, bearer := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/bearer=%t", tc.name, bearer), func(t *testing.T) {
				t.Parallel()
				srv := erpfake.Start(t)
				key := srv.APIKey()
				auth := erp.WithAPIKey(key)
				if bearer {
					auth = erp.WithBearerAPIKey(key)
				}
				tap := &sessionTap{}
				var mu sync.Mutex
				var outcomes []error
				hook := func(ctx context.Context, _ apicall.Call) (context.Context, func(apicall.Outcome)) {
					return ctx, func(o apicall.Outcome) { mu.Lock(); outcomes = append(outcomes, o.Err); mu.Unlock() }
				}
				var logs bytes.Buffer
				c, err := erp.New(srv.URL(), auth, erp.WithTransport(tap.wrap), erp.WithoutRetries(), erp.WithHook(hook),
					erp.WithLogger(slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))))
				if err != nil {
					t.Fatal(err)
				}
				tc.fail(srv, tap, key)
				_, err = c.GetUser(ctx, 1)
				if err == nil {
					t.Fatal("the call did not fail")
				}
				leaktest.NoSecretIn(t, "the error", err, key)
				if tc.is != nil && !errors.Is(err, tc.is) {
					t.Errorf("the error no longer matches %v: %v", tc.is, err)
				}
				var ee *erp.Error
				if errors.As(err, &ee) {
					leaktest.NoSecretIn(t, "the *erp.Error", ee, key)
					leaktest.NoSecretIn(t, "the *erp.Error's body", string(ee.Body), key)
					leaktest.NoSecretIn(t, "the *erp.Error's details", ee.Details, key)
				} else if tc.is != nil {
					t.Errorf("the error is no longer an *erp.Error: %#v", err)
				}
				mu.Lock()
				for _, o := range outcomes {
					leaktest.NoSecretIn(t, "an error the hook saw", o, key)
				}
				mu.Unlock()
				leaktest.NoSecretIn(t, "the log", logs.String(), key)
			})
		}
	}
}

// TestRequestPasswordNeverReachesHookOrLog: a new user's password that the
// server quotes back in its error is hidden from the hook's outcome and the
// log as well as from the error the caller gets.
func TestRequestPasswordNeverReachesHookOrLog(t *testing.T) {
	t.Parallel()
	const secret = `n3w-Us3r p/w"&+é`
	srv := erpfake.Start(t)
	var mu sync.Mutex
	var outcomes []error
	var seen []string // what the hook printed at the time, as a tracing hook would
	hook := func(ctx context.Context, _ apicall.Call) (context.Context, func(apicall.Outcome)) {
		return ctx, func(o apicall.Outcome) {
			mu.Lock()
			defer mu.Unlock()
			outcomes = append(outcomes, o.Err)
			for _, e := range leaktest.ErrTree(o.Err) {
				seen = append(seen, fmt.Sprintf("%v %+v %#v", e, e, e))
			}
		}
	}
	var logs bytes.Buffer
	c := srv.Client(erp.WithHook(hook), erp.WithoutRetries(),
		erp.WithLogger(slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	srv.InjectFault("POST /api/index.php/users", echo(400, secret))
	_, err := c.CreateUser(ctx, &erp.CreateUserRequest{Login: "jdoe", Password: secret})
	if !errors.Is(err, erp.ErrBadRequest) {
		t.Fatalf("CreateUser: %v", err)
	}
	leaktest.NoSecretIn(t, "the error", err, secret)
	mu.Lock()
	defer mu.Unlock()
	if len(outcomes) == 0 {
		t.Fatal("the hook saw nothing")
	}
	for _, o := range outcomes {
		leaktest.NoSecretIn(t, "an error the hook saw", o, secret)
	}
	leaktest.NoSecretIn(t, "what the hook printed", seen, secret)
	leaktest.NoSecretIn(t, "the log", logs.String(), secret)
}
