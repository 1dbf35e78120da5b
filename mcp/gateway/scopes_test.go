package gateway_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/apitwin/apitwin/fake/sourcehostfake"
	"github.com/apitwin/apitwin/mcp"
	"github.com/apitwin/apitwin/sourcehost"
)

// A personal access token with only the api scope, the one most GitLab
// users create, is let in: in GitLab api grants what read_user and
// read_repository grant. So is one with read_api beside api... and a
// token whose scopes grant neither api nor read_repository is still
// refused. On the old gateway the api-only token got 403.
func TestAPIScopeGrantsTheReadScopes(t *testing.T) {
	t.Parallel()
	srv, _ := seeded(t)
	up := srv.Upstream()
	if _, err := up.AddUser(sourcehostfake.UserSeed{Username: "dev", Name: "Dev"}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		scopes []string
		want   int
	}{
		{[]string{sourcehost.ScopeAPI}, http.StatusOK},
		{[]string{sourcehost.ScopeAPI, sourcehost.ScopeReadAPI}, http.StatusOK},
		{[]string{sourcehost.ScopeReadAPI}, http.StatusForbidden},                                   // reads only: no api
		{[]string{sourcehost.ScopeReadUser, sourcehost.ScopeWriteRepository}, http.StatusForbidden}, // no api
	} {
		tok, err := up.IssueToken("dev", c.scopes...)
		if err != nil {
			t.Fatal(err)
		}
		status, hdr, body := post(t, srv, listProjectsCall, "Authorization", "Bearer "+tok)
		if status != c.want {
			t.Errorf("token with %v: %d %s, want %d", c.scopes, status, body, c.want)
		}
		if c.want == http.StatusForbidden && !strings.Contains(hdr.Get("WWW-Authenticate"), `error="insufficient_scope"`) {
			t.Errorf("token with %v: WWW-Authenticate %q", c.scopes, hdr.Get("WWW-Authenticate"))
		}
	}
}

// per_page above 100 is read as 100, as the source-hosting API does (the
// specification's decision), not refused; the answer says 100.
func TestPerPageCappedAt100(t *testing.T) {
	t.Parallel()
	srv, pid := seeded(t)
	for _, method := range []string{"list_issues", "list_merge_requests", "list_pipelines"} {
		var got struct {
			Pagination mcp.Pagination `json:"pagination"`
		}
		err := srv.Client().Call(context.Background(), method, jsonObject(fmt.Sprintf(`{"project_id":%d,"per_page":500}`, pid)), &got)
		if err != nil {
			t.Errorf("%s with per_page 500: %v", method, err)
			continue
		}
		if method != "list_issues" && got.Pagination.PerPage != 100 {
			t.Errorf("%s with per_page 500: pagination %+v, want per_page 100", method, got.Pagination)
		}
	}
	status, _, body := post(t, srv, `{"jsonrpc":"2.0","method":"list_projects","params":{"per_page":101},"id":1}`)
	if status != http.StatusOK || !strings.Contains(body, `"result"`) {
		t.Errorf("list_projects per_page 101: %d %s", status, body)
	}
	// The cap reaches the upstream.
	up := srv.Upstream()
	up.ResetRequests()
	if err := srv.Client().Call(context.Background(), "search_projects", jsonObject(`{"search":"sh","per_page":1000}`), new(json.RawMessage)); err != nil {
		t.Fatal(err)
	}
	for _, r := range up.RequestsTo("GET /api/v4/projects") {
		if got := r.Query.Get("per_page"); got != "100" {
			t.Errorf("upstream asked per_page %q, want 100", got)
		}
	}
}
