package sourcehostfake

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/apitwin/apitwin/internal/fakekit"
	"github.com/apitwin/apitwin/internal/jsonw"
	"github.com/apitwin/apitwin/sourcehost"
)

// Seeding puts data in directly, as an administrator would, without rate
// limits or faults: AddUser, AddToken, AddGroup, AddProject (with its
// members, files, branches, labels, milestones, tags, releases, issues,
// merge requests and hooks), and AddIssue,
// AddMergeRequest, AddHook, AddBranch and PushFiles for a project that
// exists. Webhooks fire for seeded changes just as for API calls, each as
// a chain of its own; a project's seeded hooks are added after its other
// records, so a seed does not deliver its own data.

// Seed is every resource the fake keeps, for Load: what a seed file of
// apitwin-fake holds under "sourcehost".
//
//	users:    [{username: alice, name: Alice Liddell}]
//	tokens:   [{username: alice, token: alice-token, scopes: [api]}]
//	groups:   [{path: shop-team, members: [{username: alice, access_level: 40}]}]
//	projects:
//	  - name: shop
//	    owner: alice
//	    visibility: private
//	    files: {README.md: "# Shop", .sourcehost-ci.yml: "test: {}"}
//	    branches: [{name: feature, files: {shop.go: "package shop"}}]
//	    labels: [{name: bug, color: "#d9534f"}]
//	    milestones: [{title: v1.0, due_date: "2031-03-31"}]
//	    tags: [{name: v0.9, ref: main}]
//	    releases: [{tag_name: v0.9, description: First cut}]
//	    issues: [{title: Broken cart, labels: [bug], assignees: [alice], milestone: v1.0}]
//	    merge_requests: [{title: Cart, source_branch: feature}]
//	    hooks: [{url: "http://127.0.0.1:9000/hook", issues_events: true, token: s3cret}]
//	settings: {allow_local_requests_from_web_hooks_and_services: true}
type Seed struct {
	// Settings are applied first, so that the seed's hooks are checked
	// against them.
	Settings *SettingsSeed `json:"settings,omitempty" yaml:"settings,omitempty"`
	Users    []UserSeed    `json:"users,omitempty" yaml:"users,omitempty"`
	Tokens   []TokenSeed   `json:"tokens,omitempty" yaml:"tokens,omitempty"`
	Groups   []GroupSeed   `json:"groups,omitempty" yaml:"groups,omitempty"`
	Projects []ProjectSeed `json:"projects,omitempty" yaml:"projects,omitempty"`
}

// Load sets the settings seed holds, then adds the rest: users, then
// tokens, groups and projects, each in order. The first refusal stops it;
// its error names the entry ("projects[2].issues[0]: …"). What was added
// before it stays (a project is added whole or not at all).
func (s *Server) Load(seed Seed) error {
	seed.Settings.apply(s)
	for i, u := range seed.Users {
		if _, err := s.AddUser(u); err != nil {
			return at(fmt.Sprintf("users[%d]", i), err)
		}
	}
	for i, t := range seed.Tokens {
		if _, err := s.AddToken(t); err != nil {
			return at(fmt.Sprintf("tokens[%d]", i), err)
		}
	}
	for i, g := range seed.Groups {
		if _, err := s.AddGroup(g); err != nil {
			return at(fmt.Sprintf("groups[%d]", i), err)
		}
	}
	for i, p := range seed.Projects {
		if _, err := s.AddProject(p); err != nil {
			return at(fmt.Sprintf("projects[%d]", i), err)
		}
	}
	return nil
}

// entryError is a seeding error named by the entry it came from.
type entryError struct {
	path string // "projects[2].issues[0]"
	err  error
}

func (e *entryError) Error() string { return e.path + ": " + e.err.Error() }
func (e *entryError) Unwrap() error { return e.err }

// at names err by the entry path it came from, in front of any entry it
// already names.
func at(path string, err error) error {
	var e *entryError
	if errors.As(err, &e) && err == error(e) {
		return &entryError{path: path + "." + e.path, err: e.err}
	}
	return &entryError{path: path, err: err}
}

// unwrapEntry drops the entry name of err, for a method that seeds one
// entry alone.
func unwrapEntry(err error) error {
	var e *entryError
	if errors.As(err, &e) {
		return e.err
	}
	return err
}

// answerError turns a refusal the API would answer into a seeding error.
func answerError(a *fakekit.Answer) error {
	body, _ := a.Body.(map[string]any)
	var msg string
	switch v := firstOf(body, "message", "error").(type) {
	case string:
		msg = v
	case []string:
		msg = strings.Join(v, "; ")
	case map[string][]string:
		var parts []string
		for _, k := range slices.Sorted(maps.Keys(v)) {
			parts = append(parts, k+" "+strings.Join(v[k], ", "))
		}
		msg = strings.Join(parts, "; ")
	default:
		msg = fmt.Sprint(v)
	}
	return errors.New("sourcehostfake: " + msg)
}

func firstOf(m map[string]any, keys ...string) any {
	for _, k := range keys {
		if v, ok := m[k]; ok {
			return v
		}
	}
	return nil
}

// seedFiles makes the changes of a seed's files (path → content), sorted
// by path and hashed: done before the state is locked.
func seedFiles(files map[string]string) ([]fileChange, error) {
	changes := make([]fileChange, 0, len(files))
	for _, path := range slices.Sorted(maps.Keys(files)) {
		clean := strings.Trim(path, "/")
		if clean == "" || slices.Contains(strings.Split(clean, "/"), "..") {
			return nil, fmt.Errorf("sourcehostfake: invalid file path %q", path)
		}
		changes = append(changes, fileChange{path: clean, blob: newBlob([]byte(files[path]))})
	}
	sort.SliceStable(changes, func(i, j int) bool { return changes[i].path < changes[j].path })
	return changes, nil
}

// internalCall is a call made by the fake itself, as u. s.mu must be held.
func (s *Server) internalCall(u *user) *call {
	return &call{s: s, st: s.st, user: u, base: s.external, via: &trigger{}}
}

// Reading state back: each returns what the API would show an
// administrator, in the client's types.

// Project returns a project, or nil.
func (s *Server) Project(id int64) *sourcehost.Project {
	return readBack[sourcehost.Project](s, func(c *call) any {
		if p := s.st.projByID[id]; p != nil {
			return json.RawMessage(c.appendProject(nil, p, true))
		}
		return nil
	})
}

// Issues returns a project's issues in creation order.
func (s *Server) Issues(projectID int64) []*sourcehost.Issue {
	return readBackAll[sourcehost.Issue](s, projectID, func(c *call, p *project) any { return json.RawMessage(jsonw.AppendArray(nil, p.issues, c.appendIssue)) })
}

// MergeRequests returns a project's merge requests in creation order.
func (s *Server) MergeRequests(projectID int64) []*sourcehost.MergeRequest {
	return readBackAll[sourcehost.MergeRequest](s, projectID, func(c *call, p *project) any { return json.RawMessage(jsonw.AppendArray(nil, p.mrs, c.appendMR)) })
}

// Pipelines returns a project's pipelines in creation order.
func (s *Server) Pipelines(projectID int64) []*sourcehost.Pipeline {
	return readBackAll[sourcehost.Pipeline](s, projectID, func(c *call, p *project) any {
		return json.RawMessage(jsonw.AppendArray(nil, p.pipelines, c.appendPipelineDetail))
	})
}

// Hooks returns a project's webhooks.
func (s *Server) Hooks(projectID int64) []*sourcehost.ProjectHook {
	return readBackAll[sourcehost.ProjectHook](s, projectID, func(_ *call, p *project) any { return renderAll(p.hooks, renderHook) })
}

// readBack renders and encodes under the lock (views may point into the
// state) and decodes into the client's type, so what a test reads back is
// exactly what the API would answer.
func readBack[T any](s *Server, render func(*call) any) *T {
	b := func() []byte {
		s.mu.Lock()
		defer s.mu.Unlock()
		v := render(s.internalCall(s.root))
		if v == nil {
			return nil
		}
		if b, isJSON := v.(json.RawMessage); isJSON {
			return b
		}
		b, err := json.Marshal(v)
		if err != nil {
			return nil
		}
		return b
	}()
	if b == nil {
		return nil
	}
	out := new(T)
	if json.Unmarshal(b, out) != nil {
		return nil
	}
	return out
}

func readBackAll[T any](s *Server, projectID int64, render func(*call, *project) any) []*T {
	list := readBack[[]*T](s, func(c *call) any {
		if p := s.st.projByID[projectID]; p != nil {
			return render(c, p)
		}
		return nil
	})
	if list == nil {
		return nil
	}
	return *list
}
