package sourcehost_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/apitwin/apitwin/internal/leaktest"
	"github.com/apitwin/apitwin/sourcehost"
	"github.com/google/go-cmp/cmp"
)

func TestProjectVariables(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	p := tg.project(t, sourcehost.Private)
	const secret = "dG9rZW4tZm9yLWRlcGxveQ=="
	v, err := tg.c.CreateVariable(ctx, pid(p), &sourcehost.CreateVariableRequest{Key: "DEPLOY_TOKEN", Value: secret,
		Masked: sourcehost.Ptr(true), Protected: sourcehost.Ptr(true), Description: "deploys"})
	if err != nil {
		t.Fatal(err)
	}
	want := &sourcehost.Variable{Key: "DEPLOY_TOKEN", Value: secret, VariableType: sourcehost.EnvVar, Protected: true, Masked: true,
		EnvironmentScope: "*", Description: "deploys"}
	if d := cmp.Diff(want, v); d != "" {
		t.Fatalf("created (-want +got):\n%s", d)
	}
	leaktest.NoSecretIn(t, "a variable", v, secret)
	leaktest.NoSecretIn(t, "a variable by value", *v, secret)
	if _, err := tg.c.CreateVariable(ctx, pid(p), &sourcehost.CreateVariableRequest{Key: "PLAIN", Value: "x", VariableType: sourcehost.FileVar}); err != nil {
		t.Fatal(err)
	}
	got, err := tg.c.GetVariable(ctx, pid(p), "DEPLOY_TOKEN", nil)
	if err != nil || got.Value != secret || !got.Masked {
		t.Fatalf("get %v %v", got, err)
	}
	var keys []string
	for v, err := range tg.c.AllVariables(ctx, pid(p), &sourcehost.ListVariablesOptions{ListOptions: sourcehost.ListOptions{PerPage: 1}}) {
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, v.Key)
	}
	if d := cmp.Diff([]string{"DEPLOY_TOKEN", "PLAIN"}, keys); d != "" {
		t.Fatalf("listed (-want +got):\n%s", d)
	}
	up, err := tg.c.UpdateVariable(ctx, pid(p), "PLAIN", nil, &sourcehost.UpdateVariableRequest{Value: sourcehost.Ptr("y"), Protected: sourcehost.Ptr(true)})
	if err != nil || up.Value != "y" || !up.Protected || up.VariableType != sourcehost.FileVar {
		t.Fatalf("update %v %v", up, err)
	}
	if err := tg.c.DeleteVariable(ctx, pid(p), "PLAIN", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := tg.c.GetVariable(ctx, pid(p), "PLAIN", nil); !errors.Is(err, sourcehost.ErrNotFound) {
		t.Fatalf("a deleted variable: %v", err)
	}
	var e *sourcehost.Error
	if err := tg.c.DeleteVariable(ctx, pid(p), "PLAIN", nil); !errors.As(err, &e) || e.Message != "404 Variable Not Found" {
		t.Fatalf("deleted twice: %v", err)
	}
}

// TestVariableRefusals: GitLab's rules for keys and for what may be
// masked, each a 400 by field that quotes no value.
func TestVariableRefusals(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	p := tg.project(t, sourcehost.Private)
	if _, err := tg.c.CreateVariable(ctx, pid(p), &sourcehost.CreateVariableRequest{Key: "TAKEN", Value: "v"}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		req   sourcehost.CreateVariableRequest
		field string
		msg   string
	}{
		{"short masked", sourcehost.CreateVariableRequest{Key: "K", Value: "short", Masked: sourcehost.Ptr(true)}, "value", "is invalid"},
		{"masked with a space", sourcehost.CreateVariableRequest{Key: "K", Value: "has a space in it", Masked: sourcehost.Ptr(true)}, "value", "is invalid"},
		{"masked with a dollar", sourcehost.CreateVariableRequest{Key: "K", Value: "pa$$word123", Masked: sourcehost.Ptr(true)}, "value", "is invalid"},
		{"masked multi-line", sourcehost.CreateVariableRequest{Key: "K", Value: "line-one\nline-two", Masked: sourcehost.Ptr(true), Raw: sourcehost.Ptr(true)}, "value", "is invalid"},
		{"too long", sourcehost.CreateVariableRequest{Key: "K", Value: strings.Repeat("v", 10_001)}, "value", "is too long (maximum is 10000 characters)"},
		{"bad key", sourcehost.CreateVariableRequest{Key: "NO-DASHES", Value: "v"}, "key", "can contain only letters, digits and '_'."},
		{"taken", sourcehost.CreateVariableRequest{Key: "TAKEN", Value: "v"}, "key", "(TAKEN) has already been taken"},
	} {
		_, err := tg.c.CreateVariable(ctx, pid(p), &tc.req)
		var e *sourcehost.Error
		if !errors.Is(err, sourcehost.ErrBadRequest) || !errors.As(err, &e) || !cmp.Equal(e.Fields[tc.field], []string{tc.msg}) {
			t.Errorf("%s: %v (%+v)", tc.name, err, e)
			continue
		}
		if len(tc.req.Value) >= 8 && len(tc.req.Value) < 100 {
			leaktest.NoSecretIn(t, tc.name, err, tc.req.Value)
		}
	}
	// A raw masked value may hold any character but a space.
	if _, err := tg.c.CreateVariable(ctx, pid(p), &sourcehost.CreateVariableRequest{Key: "RAW", Value: "pa$$word!23", Masked: sourcehost.Ptr(true), Raw: sourcehost.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	if vars, _ := tg.c.ListVariables(ctx, pid(p), nil); len(vars.Items) != 2 {
		t.Fatalf("a refusal changed something: %d variables", len(vars.Items))
	}
}

func TestVariableScopes(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	p := tg.project(t, sourcehost.Private)
	for _, scope := range []string{"production", "review/*"} {
		if _, err := tg.c.CreateVariable(ctx, pid(p), &sourcehost.CreateVariableRequest{Key: "URL", Value: scope + ".example", EnvironmentScope: scope}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := tg.c.GetVariable(ctx, pid(p), "URL", nil); !errors.Is(err, sourcehost.ErrConflict) {
		t.Fatalf("a key in two scopes, unfiltered: %v", err)
	}
	review := &sourcehost.VariableScope{EnvironmentScope: "review/*"}
	v, err := tg.c.GetVariable(ctx, pid(p), "URL", review)
	if err != nil || v.Value != "review/*.example" {
		t.Fatalf("filtered %v %v", v, err)
	}
	if v, err := tg.c.UpdateVariable(ctx, pid(p), "URL", review, &sourcehost.UpdateVariableRequest{Value: sourcehost.Ptr("r2")}); err != nil || v.EnvironmentScope != "review/*" || v.Value != "r2" {
		t.Fatalf("update in a scope %v %v", v, err)
	}
	if err := tg.c.DeleteVariable(ctx, pid(p), "URL", review); err != nil {
		t.Fatal(err)
	}
	if v, err := tg.c.GetVariable(ctx, pid(p), "URL", nil); err != nil || v.EnvironmentScope != "production" {
		t.Fatalf("the other scope's %v %v", v, err)
	}
}

// TestVariablesAreTheMaintainers: developers neither read nor write a
// project's variables.
func TestVariablesAreTheMaintainers(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	srv := tg.needFake(t)
	p := tg.project(t, sourcehost.Private)
	name := "dev-" + unique()
	clients, ids := users(t, srv, name)
	if _, err := tg.c.AddProjectMember(ctx, pid(p), &sourcehost.AddProjectMemberRequest{UserID: ids[name], AccessLevel: sourcehost.DeveloperAccess}); err != nil {
		t.Fatal(err)
	}
	dev := clients[name]
	if _, err := dev.ListVariables(ctx, pid(p), nil); !errors.Is(err, sourcehost.ErrForbidden) {
		t.Fatalf("a developer listed: %v", err)
	}
	if _, err := dev.CreateVariable(ctx, pid(p), &sourcehost.CreateVariableRequest{Key: "K", Value: "v"}); !errors.Is(err, sourcehost.ErrForbidden) {
		t.Fatalf("a developer created: %v", err)
	}
}

// TestHiddenVariable: a variable made masked and hidden never answers its
// value again.
func TestHiddenVariable(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	p := tg.project(t, sourcehost.Private)
	v, err := tg.c.CreateVariable(ctx, pid(p), &sourcehost.CreateVariableRequest{Key: "HIDDEN", Value: "hidden-value-1", MaskedAndHidden: sourcehost.Ptr(true)})
	if err != nil || !v.Hidden || !v.Masked || v.Value != "" {
		t.Fatalf("created %v %v", v, err)
	}
	if v, err := tg.c.GetVariable(ctx, pid(p), "HIDDEN", nil); err != nil || v.Value != "" {
		t.Fatalf("read back %v %v", v, err)
	}
}

// TestVariableValuesNotInTheRequestLog: the fake's request log keeps no
// variable's value, in the requests (JSON and form) or in the answers.
func TestVariableValuesNotInTheRequestLog(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	srv := tg.needFake(t)
	p := tg.project(t, sourcehost.Private)
	const masked, other = "m4sked-S3cret/value", "form-S3cret-value"
	if _, err := tg.c.CreateVariable(ctx, pid(p), &sourcehost.CreateVariableRequest{Key: "M", Value: masked, Masked: sourcehost.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	// A form body, as curl sends it.
	req, err := http.NewRequest("POST", srv.URL()+fmt.Sprintf("/api/v4/projects/%d/variables", p.ID), strings.NewReader("key=F&value="+other+"&masked=true"))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("PRIVATE-TOKEN", srv.Token())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 201 {
		t.Fatalf("form create: %s", resp.Status)
	}
	if _, err := tg.c.ListVariables(ctx, pid(p), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := tg.c.GetVariable(ctx, pid(p), "M", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := tg.c.UpdateVariable(ctx, pid(p), "M", nil, &sourcehost.UpdateVariableRequest{Value: sourcehost.Ptr(masked + "2")}); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if len(reqs) < 4 {
		t.Fatalf("%d requests logged", len(reqs))
	}
	for _, r := range reqs {
		b, _ := json.Marshal(r)
		for _, s := range []string{masked, other} {
			if bytes.Contains(b, []byte(s)) || bytes.Contains(r.Body, []byte(s)) || bytes.Contains(r.ResponseBody, []byte(s)) {
				t.Errorf("%s %s logged a value: %s", r.Method, r.Path, b)
			}
		}
	}
}

// TestVariableValueNeverInErrors: a variable's value, sent by
// CreateVariable and UpdateVariable, shows in no rendering of the error,
// the hook's outcome or the log, when an answer quotes it.
func TestVariableValueNeverInErrors(t *testing.T) {
	t.Parallel()
	const token, value = "glpat-Sup3r/S3cret+tok", "dmFyaWFibGUtc2VjcmV0"
	errorBody := func(status int, quote string) string {
		b, _ := json.Marshal(map[string]any{"message": map[string][]string{"value": {fmt.Sprintf("%d bad %s", status, quote)}}})
		return string(b)
	}
	calls := map[string]func(*sourcehost.Client) error{
		"CreateVariable": func(c *sourcehost.Client) error {
			_, err := c.CreateVariable(ctx, sourcehost.ProjectID(1), &sourcehost.CreateVariableRequest{Key: "K", Value: value, Masked: sourcehost.Ptr(true)})
			return err
		},
		"UpdateVariable": func(c *sourcehost.Client) error {
			_, err := c.UpdateVariable(ctx, sourcehost.ProjectID(1), "K", nil, &sourcehost.UpdateVariableRequest{Value: sourcehost.Ptr(value)})
			return err
		},
	}
	for name, call := range calls {
		for _, srv := range []*leaktest.Server{
			{Status: 400, ErrorBody: errorBody},
			{DecodeBody: func(s string) string { return `{"key":"K","protected":"` + s + `"}` }},
		} {
			t.Run(fmt.Sprintf("%s/%d", name, srv.Status), func(t *testing.T) {
				t.Parallel()
				srv.Secrets = []string{value}
				hs := httptest.NewServer(srv)
				t.Cleanup(hs.Close)
				var obs leaktest.Observed
				c, err := sourcehost.New(hs.URL, sourcehost.WithToken(token), sourcehost.WithoutRetries(),
					sourcehost.WithHook(obs.Hook), sourcehost.WithLogger(obs.Logger()))
				if err != nil {
					t.Fatal(err)
				}
				if err = call(c); err == nil {
					t.Fatal("the call did not fail")
				}
				leaktest.NoSecretIn(t, "the error", err, value)
				obs.Check(t, value)
			})
		}
	}
}
