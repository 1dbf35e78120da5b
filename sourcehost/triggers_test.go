package sourcehost_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/apitwin/apitwin/fake/sourcehostfake"
	"github.com/apitwin/apitwin/internal/leaktest"
	"github.com/apitwin/apitwin/sourcehost"
	"github.com/google/go-cmp/cmp"
)

// ciProject is a project whose default branch holds a CI definition.
func (tg *target) ciProject(t *testing.T) *sourcehost.Project {
	t.Helper()
	p := tg.project(t, sourcehost.Private)
	if _, err := tg.c.CreateFile(ctx, pid(p), sourcehostfake.CIFile, &sourcehost.CreateFileRequest{Branch: p.DefaultBranch,
		Content: twoJobsCI, CommitMessage: "Add CI"}); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestPipelineTriggers(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	p := tg.ciProject(t)
	me, err := tg.c.CurrentUser(ctx)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := tg.c.CreatePipelineTrigger(ctx, pid(p), "deploys")
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Token) < 20 || tr.Description != "deploys" || tr.Owner == nil || tr.Owner.ID != me.ID || tr.LastUsed != nil {
		t.Fatalf("created %+v", tr)
	}
	leaktest.NoSecretIn(t, "a trigger", tr, tr.Token)
	leaktest.NoSecretIn(t, "a trigger by value", *tr, tr.Token)

	// Anyone holding the token runs a pipeline as the trigger's owner, no
	// credentials of their own needed.
	anon, err := sourcehost.New(tg.c.BaseURL())
	if err != nil {
		t.Fatal(err)
	}
	pl, err := anon.RunPipelineTrigger(ctx, pid(p), &sourcehost.RunPipelineTriggerRequest{Token: tr.Token, Ref: p.DefaultBranch,
		Variables: map[string]string{"TARGET": "staging"}})
	if err != nil {
		t.Fatal(err)
	}
	if pl.Source != "trigger" || pl.Ref != p.DefaultBranch || pl.User == nil || pl.User.ID != me.ID {
		t.Fatalf("triggered %+v", pl)
	}
	vars, err := tg.c.ListPipelineVariables(ctx, pid(p), pl.ID)
	if err != nil || len(vars) != 1 || vars[0].Key != "TARGET" || vars[0].Value != "staging" {
		t.Fatalf("its variables %v %v", vars, err)
	}
	got, err := tg.c.GetPipelineTrigger(ctx, pid(p), tr.ID)
	if err != nil || got.LastUsed == nil || got.Token != tr.Token {
		t.Fatalf("after use %+v %v", got, err)
	}
	up, err := tg.c.UpdatePipelineTrigger(ctx, pid(p), tr.ID, "nightly")
	if err != nil || up.Description != "nightly" {
		t.Fatalf("update %+v %v", up, err)
	}
	page, err := tg.c.ListPipelineTriggers(ctx, pid(p), nil)
	if err != nil || len(page.Items) != 1 || page.Items[0].Description != "nightly" {
		t.Fatalf("list %+v %v", page, err)
	}

	_, err = anon.RunPipelineTrigger(ctx, pid(p), &sourcehost.RunPipelineTriggerRequest{Token: tr.Token + "x", Ref: p.DefaultBranch})
	if !errors.Is(err, sourcehost.ErrNotFound) {
		t.Fatalf("a wrong token: %v", err)
	}
	_, err = anon.RunPipelineTrigger(ctx, pid(p), &sourcehost.RunPipelineTriggerRequest{Token: tr.Token, Ref: "no-such-ref"})
	var e *sourcehost.Error
	if !errors.As(err, &e) || e.Message != "Reference not found" {
		t.Fatalf("a missing ref: %v", err)
	}
	if err := tg.c.DeletePipelineTrigger(ctx, pid(p), tr.ID); err != nil {
		t.Fatal(err)
	}
	_, err = anon.RunPipelineTrigger(ctx, pid(p), &sourcehost.RunPipelineTriggerRequest{Token: tr.Token, Ref: p.DefaultBranch})
	if !errors.Is(err, sourcehost.ErrNotFound) {
		t.Fatalf("a deleted trigger's token: %v", err)
	}
	if _, err := tg.c.GetPipelineTrigger(ctx, pid(p), tr.ID); !errors.As(err, &e) || e.Message != "404 Trigger Not Found" {
		t.Fatalf("a deleted trigger: %v", err)
	}
}

// TestPipelineTriggerOthersSeeAShortToken: a maintainer who does not own a
// trigger sees its first 4 characters, and may not edit it.
func TestPipelineTriggerOthersSeeAShortToken(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	srv := tg.needFake(t)
	p := tg.ciProject(t)
	tr, err := tg.c.CreatePipelineTrigger(ctx, pid(p), "mine")
	if err != nil {
		t.Fatal(err)
	}
	name := "maint-" + unique()
	clients, ids := users(t, srv, name)
	if _, err := tg.c.AddProjectMember(ctx, pid(p), &sourcehost.AddProjectMemberRequest{UserID: ids[name], AccessLevel: sourcehost.MaintainerAccess}); err != nil {
		t.Fatal(err)
	}
	other := clients[name]
	seen, err := other.GetPipelineTrigger(ctx, pid(p), tr.ID)
	if err != nil || len(seen.Token) != 4 || !strings.Contains(tr.Token, seen.Token) {
		t.Fatalf("another maintainer sees %q (%v)", seen.Token, err)
	}
	if _, err := other.UpdatePipelineTrigger(ctx, pid(p), tr.ID, "theirs"); !errors.Is(err, sourcehost.ErrForbidden) {
		t.Fatalf("another maintainer edited: %v", err)
	}
}

// TestTriggerFormNotInTheRequestLog: a trigger run as curl sends it, a
// form with token and variables[KEY]=value and no credentials, runs with
// its variables, and the request log shows neither the token nor a value.
func TestTriggerFormNotInTheRequestLog(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	srv := tg.needFake(t)
	p := tg.ciProject(t)
	tr, err := tg.c.CreatePipelineTrigger(ctx, pid(p), "curl")
	if err != nil {
		t.Fatal(err)
	}
	const secret = "deploy-S3cret-in-a-variable"
	form := url.Values{"token": {tr.Token}, "ref": {p.DefaultBranch}, "variables[DEPLOY_KEY]": {secret}, "variables[ENV]": {"prod"}}
	resp, err := http.PostForm(srv.URL()+fmt.Sprintf("/api/v4/projects/%d/trigger/pipeline", p.ID), form)
	if err != nil {
		t.Fatal(err)
	}
	var pl sourcehost.Pipeline
	if err := json.NewDecoder(resp.Body).Decode(&pl); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated || pl.Source != "trigger" {
		t.Fatalf("form trigger: %s %+v", resp.Status, pl)
	}
	vars, err := tg.c.ListPipelineVariables(ctx, pid(p), pl.ID)
	if err != nil {
		t.Fatal(err)
	}
	want := []*sourcehost.PipelineVariable{{Key: "DEPLOY_KEY", Value: secret, VariableType: "env_var"}, {Key: "ENV", Value: "prod", VariableType: "env_var"}}
	if d := cmp.Diff(want, vars); d != "" {
		t.Fatalf("variables (-want +got):\n%s", d)
	}
	// And as JSON, through the client.
	if _, err := tg.c.RunPipelineTrigger(ctx, pid(p), &sourcehost.RunPipelineTriggerRequest{Token: tr.Token, Ref: p.DefaultBranch,
		Variables: map[string]string{"DEPLOY_KEY": secret}}); err != nil {
		t.Fatal(err)
	}
	for _, r := range srv.Requests() {
		b, _ := json.Marshal(r)
		for _, s := range []string{tr.Token, secret} {
			if bytes.Contains(b, []byte(s)) || bytes.Contains(r.Body, []byte(s)) || bytes.Contains(r.ResponseBody, []byte(s)) {
				t.Errorf("%s %s logged a secret: %s", r.Method, r.Path, b)
			}
		}
	}
}
