package sourcehostfake_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/apitwin/apitwin/fake/sourcehostfake"
	"github.com/apitwin/apitwin/internal/fakekit"
)

// fuzzToken is the root token of the fuzzed fakes, so that scripts can put
// it in the URLs of hooks that call the fake back.
const fuzzToken = "fuzz-root-token"

// fuzzSeed is the state every fuzz input starts from: a public project
// "shop" (id 1) with a CI file, a feature branch, an issue and a merge
// request, and a user with a read-only token.
var fuzzSeed = sourcehostfake.Seed{
	Users:  []sourcehostfake.UserSeed{{Username: "alice"}},
	Tokens: []sourcehostfake.TokenSeed{{Username: "alice", Token: "alice-read", Scopes: []string{"read_api"}}},
	Projects: []sourcehostfake.ProjectSeed{{
		Name: "shop", Visibility: "public",
		Files:         map[string]string{"README.md": "# Shop", sourcehostfake.CIFile: "test: {}"},
		Branches:      []sourcehostfake.BranchSeed{{Name: "feature", Files: map[string]string{"cart.go": "package cart"}}},
		Issues:        []sourcehostfake.IssueSeed{{Title: "Broken cart", Labels: []string{"bug"}, Assignees: []string{"alice"}}},
		MergeRequests: []sourcehostfake.MergeRequestSeed{{Title: "Cart", SourceBranch: "feature"}},
	}},
}

// selfHook is a script line that adds a hook calling the fake back: every
// issue event creates another issue in project 1.
const selfHook = "POST /api/v4/projects/1/hooks\nContent-Type: application/x-www-form-urlencoded\n\n" +
	"url=http%3A%2F%2Ffake.test%2Fapi%2Fv4%2Fprojects%2F1%2Fissues%3Ftitle%3Decho%26private_token%3D" + fuzzToken +
	"&issues_events=true&push_events=false"

// FuzzFrontDoor sends scripts of arbitrary requests to the fake's front
// door. No handler may panic; every error is in the API's shape ({"message"}
// or {"error"}, or 429's "Retry later"); a project list is still answered
// after each script; webhook deliveries (every hook URL reaches the fake
// itself) come to an end; and the state keeps its invariants: iids unique
// and increasing per project, every issue and merge request in an existing
// project, branch heads and pipelines on known commits, hook ids unique and
// at most 100 per project, and no chain of deliveries past 100 hooks.
func FuzzFrontDoor(f *testing.F) {
	seeds := []string{
		// Finding 1 of issue 14: the offset overflowed and the lock stayed held.
		"GET /api/v4/projects?page=9223372036854775807",
		"GET /api/v4/projects/1/issues?page=9223372036854775807&per_page=100",
		"GET /api/v4/projects?page=9223372036854775808\n===\nGET /api/v4/projects?per_page=99999999999999999999",
		"GET /api/v4/projects?page=2501&per_page=20\n===\nGET /api/v4/projects?page=-5&per_page=-1",
		// Finding 5: a hook that calls the fake back.
		selfHook + "\n===\nPOST /api/v4/projects/1/issues\nContent-Type: application/json\n\n{\"title\":\"first\"}",
		selfHook + "\n===\n" + selfHook + "\n===\nPUT /api/v4/projects/1/issues/1?state_event=close",
		// Ids that do not fit, in paths, queries and bodies.
		"GET /api/v4/projects/99999999999999999999999\n===\nGET /api/v4/projects/1/issues/-1\n===\nGET /api/v4/projects/1/merge_requests/18446744073709551616",
		"POST /api/v4/projects/1/issues\nContent-Type: application/json\n\n{\"title\":\"t\",\"assignee_ids\":[1,99999999999999999999]}",
		"POST /api/v4/projects\nContent-Type: application/json\n\n{\"name\":\"n\",\"namespace_id\":1e400}",
		"GET /api/v4/issues?scope=all&author_id=-9223372036854775809&assignee_id=Any",
		// Ordinary traffic.
		"POST /api/v4/projects/1/repository/files/a%2Fb.txt\nContent-Type: application/json\n\n{\"branch\":\"main\",\"content\":\"aGk=\",\"encoding\":\"base64\",\"commit_message\":\"m\"}",
		"PUT /api/v4/projects/1/merge_requests/1/merge?should_remove_source_branch=true\n===\nGET /api/v4/projects/1/repository/branches",
		"POST /api/v4/projects/1/repository/branches?branch=x&ref=main\n===\nPOST /api/v4/projects/1/merge_requests?source_branch=x&target_branch=main&title=t",
		"POST /api/v4/projects/1/pipeline?ref=main\n===\nPOST /api/v4/projects/1/pipelines/1/cancel\n===\nGET /api/v4/projects/1/pipelines",
		"DELETE /api/v4/projects/1/hooks/1\n===\nGET /api/v4/projects/1/hooks\n===\nGET /api/v4/user\n===\nGET /api/v4/personal_access_tokens/self",
		"POST /api/v4/projects/1/issues\nPRIVATE-TOKEN: alice-read\n\ntitle=x\n===\nPOST /api/v4/projects/1/star",
		"POST /api/v4/projects/1/issues\nContent-Type: multipart/form-data; boundary=x\n\n--x\r\n",
		"GET /api/v4/nowhere\n===\nDELETE /api/v4/projects",
		// Issue 19: jobs.
		"GET /api/v4/projects/1/pipelines/1/jobs?scope[]=pending&include_retried=true\n===\nPOST /api/v4/projects/1/jobs/1/cancel\n===\nPOST /api/v4/projects/1/jobs/1/retry\n===\nPOST /api/v4/projects/1/jobs/2/retry\n===\nGET /api/v4/projects/1/jobs/2/trace\n===\nGET /api/v4/projects/1/jobs?scope=bogus",
		// Issue 19: commits and files.
		"PUT /api/v4/projects/1/repository/files/README.md\nContent-Type: application/json\n\n{\"branch\":\"main\",\"content\":\"x\",\"commit_message\":\"m\",\"last_commit_id\":\"0000000\"}\n===\nPUT /api/v4/projects/1/repository/files/README.md?branch=main&content=y&commit_message=m\n===\nDELETE /api/v4/projects/1/repository/files/README.md?branch=new&start_branch=feature&commit_message=d\n===\nGET /api/v4/projects/1/repository/commits?ref_name=main&path=README.md&since=2000-01-01T00:00:00Z&until=bad",
		"GET /api/v4/projects/1/merge_requests/1/commits\n===\nPUT /api/v4/projects/1/merge_requests/1/merge\n===\nGET /api/v4/projects/1/merge_requests/1/commits?per_page=1&page=2\n===\nGET /api/v4/projects/1/repository/commits?ref_name=v9",
		// Issue 19: branches, tags, releases.
		"GET /api/v4/projects/1/repository/branches/feature\n===\nPOST /api/v4/projects/1/protected_branches?name=feat*&push_access_level=0&merge_access_level=7\n===\nPOST /api/v4/projects/1/protected_branches?name=feat*\n===\nDELETE /api/v4/projects/1/repository/branches/feature\n===\nDELETE /api/v4/projects/1/protected_branches/feat*\n===\nDELETE /api/v4/projects/1/repository/branches/main",
		"POST /api/v4/projects/1/repository/tags?tag_name=v1&ref=main&message=m\n===\nPOST /api/v4/projects/1/repository/tags?tag_name=..&ref=nope\n===\nGET /api/v4/projects/1/repository/tags?order_by=version&search=%5Ev\n===\nDELETE /api/v4/projects/1/repository/tags/v1",
		"POST /api/v4/projects/1/releases\nContent-Type: application/json\n\n{\"tag_name\":\"v2\",\"ref\":\"feature\",\"milestones\":[\"none\"],\"released_at\":\"2030-01-01T00:00:00Z\"}\n===\nPOST /api/v4/projects/1/releases?tag_name=v2&ref=main\n===\nPUT /api/v4/projects/1/releases/v2?description=d\n===\nGET /api/v4/projects/1/releases?order_by=created_at&sort=asc\n===\nDELETE /api/v4/projects/1/releases/v2",
		// Issue 19: labels and milestones.
		"POST /api/v4/projects/1/labels?name=ui&color=%23abc&priority=-1\n===\nPOST /api/v4/projects/1/labels?name=a%2Cb&color=red\n===\nPUT /api/v4/projects/1/labels/bug?new_name=defect&color=blue\n===\nGET /api/v4/projects/1/labels?with_counts=true\n===\nDELETE /api/v4/projects/1/labels/defect",
		"POST /api/v4/projects/1/milestones?title=v1&due_date=2030-01-01&start_date=2031-01-01\n===\nPOST /api/v4/projects/1/milestones?title=v1\n===\nPOST /api/v4/projects/1/issues?title=t&milestone_id=1\n===\nGET /api/v4/projects/1/issues?milestone=v1\n===\nPUT /api/v4/projects/1/milestones/1?state_event=close\n===\nDELETE /api/v4/projects/1/milestones/1",
		// Issue 19: notes.
		"POST /api/v4/projects/1/issues/1/notes\nContent-Type: application/json\n\n{\"body\":\"hi\",\"internal\":true}\n===\nPUT /api/v4/projects/1/issues/1/notes/1?body=edited\n===\nGET /api/v4/projects/1/issues/1/notes?sort=asc&order_by=updated_at\n===\nDELETE /api/v4/projects/1/issues/1/notes/1",
		"POST /api/v4/projects/1/merge_requests/1/notes?body=x\n===\nPUT /api/v4/projects/1/merge_requests/1/merge\n===\nGET /api/v4/projects/1/merge_requests/1/notes/2\n===\nPUT /api/v4/projects/1/merge_requests/1/notes/2?body=y",
		// Issue 19: members.
		"POST /api/v4/projects/1/members\nContent-Type: application/json\n\n{\"user_id\":2,\"access_level\":30,\"expires_at\":\"2030-01-01\"}\n===\nPUT /api/v4/projects/1/members/2?access_level=50\n===\nGET /api/v4/projects/1/members/all?query=al&user_ids=2,99999999999999999999\n===\nDELETE /api/v4/projects/1/members/2",
		"POST /api/v4/projects/1/members?username=alice&access_level=25\n===\nGET /api/v4/projects/1/members/all/1\n===\nGET /api/v4/projects/1/members/x",
		// Issue 34: the OAuth authorization server.
		"POST /oauth/register\nContent-Type: application/json\n\n{\"redirect_uris\":[\"http://127.0.0.1:1/cb\"],\"scope\":\"api x\"}\n===\nGET /oauth/authorize?client_id=x&redirect_uri=http://127.0.0.1:1/cb&response_type=code&code_challenge=abc&code_challenge_method=plain\n===\nPOST /oauth/authorize\nContent-Type: application/x-www-form-urlencoded\n\npending=x&authenticity_token=y&decision=approve",
		"POST /oauth/token?grant_type=refresh_token&client_id=x&refresh_token=y&resource=a&resource=b\n===\nPOST /oauth/token?grant_type=authorization_code&code=z&code_verifier=v\n===\nPOST /oauth/revoke?token=t&client_id=c\n===\nPOST /oauth/introspect?token=t\n===\nGET /oauth/token/info?access_token=t\n===\nGET /.well-known/oauth-authorization-server",
	}
	fakekit.FuzzHTTP(f, seeds, func(t *testing.T) *fakekit.FuzzTarget {
		var srv *sourcehostfake.Server
		// Every hook URL reaches the fake itself, in process: no network,
		// and every hook is a hook that calls back.
		self := &http.Client{Transport: fakekit.HandlerTransport{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			srv.ServeHTTP(w, r)
		})}}
		var err error
		srv, err = sourcehostfake.New(sourcehostfake.WithRootToken(fuzzToken), sourcehostfake.WithHookClient(self),
			sourcehostfake.WithRateLimit(0, 0))
		if err != nil {
			t.Fatal(err)
		}
		if err := srv.Load(fuzzSeed); err != nil {
			t.Fatal(err)
		}
		return &fakekit.FuzzTarget{
			Handler:    srv,
			Header:     http.Header{"Private-Token": {fuzzToken}},
			Requests:   srv.Requests,
			ErrorShape: errorShape,
			Probe: func() *http.Request {
				r := httptest.NewRequest("GET", "/api/v4/projects?per_page=5", nil)
				r.Header.Set("PRIVATE-TOKEN", fuzzToken)
				return r
			},
			ProbeStatus: http.StatusOK,
			Check:       func() error { return checkAfterDeliveries(srv) },
			Close:       srv.Close,
		}
	})
}

// errorShape is the API's error shape: a JSON object with "message" or
// "error"; a refused rate is plain text.
func errorShape(status int, h http.Header, body []byte) error {
	if status == http.StatusTooManyRequests {
		if string(body) != "Retry later\n" {
			return fmt.Errorf("429 body %q", body)
		}
		return nil
	}
	if strings.HasPrefix(h.Get("Content-Type"), "text/html") {
		// The OAuth login page's refusals are pages for the browser, saying
		// why in its error paragraph, as GitLab's are.
		if !bytes.HasPrefix(body, []byte("<!DOCTYPE html>")) || !bytes.Contains(body, []byte(`class="error" id="error"`)) {
			return fmt.Errorf("an HTML answer that is no error page")
		}
		return nil
	}
	if !strings.HasPrefix(h.Get("Content-Type"), "application/json") {
		return fmt.Errorf("content type %q", h.Get("Content-Type"))
	}
	return fakekit.ErrorJSON(body, "message", "error")
}

// checkAfterDeliveries waits for the deliveries the script triggered (a
// chain that never ends would never let it), then checks the state and
// the chains.
func checkAfterDeliveries(srv *sourcehostfake.Server) error {
	// A hang detector, not a timing assertion: deliveries in process take
	// microseconds, and a chain ends after at most 100 hooks.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := srv.WaitDeliveries(ctx); err != nil {
		return fmt.Errorf("deliveries did not come to an end: %v", err)
	}
	if err := sourcehostfake.CheckInvariants(srv); err != nil {
		return err
	}
	sent := map[string]map[int64]int{} // chain → hook → deliveries sent
	for _, d := range srv.Deliveries() {
		if d.State == sourcehostfake.DeliveryBlocked || d.State == sourcehostfake.DeliveryDropped {
			continue
		}
		if sent[d.UUID] == nil {
			sent[d.UUID] = map[int64]int{}
		}
		sent[d.UUID][d.HookID]++
		if len(d.Payload) == d.PayloadSize && !json.Valid(d.Payload) {
			return fmt.Errorf("delivery of %s: payload is not JSON", d.Event)
		}
	}
	for uuid, hooks := range sent {
		if len(hooks) > 100 {
			return fmt.Errorf("chain %s fired %d hooks", uuid, len(hooks))
		}
	}
	return nil
}
