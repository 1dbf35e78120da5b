package sourcehostfake

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/apitwin/apitwin/sourcehost"
)

// Seeding puts data in directly, as an administrator would, without rate
// limits or faults. Webhooks fire for seeded pushes just as for API calls.

// AddUser adds a user with a namespace of its own and returns its id.
func (s *Server) AddUser(username, name string) (int64, error) {
	if !usernameRE.MatchString(username) {
		return 0, fmt.Errorf("sourcehostfake: invalid username %q", username)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.st.userByName[strings.ToLower(username)] != nil || s.st.nsByPath[strings.ToLower(username)] != nil {
		return 0, fmt.Errorf("sourcehostfake: username %q is taken", username)
	}
	if name == "" {
		name = username
	}
	return s.st.addUser(username, name, username+"@example.com", false).id, nil
}

// CreateToken gives a user a personal access token with the scopes named
// (sourcehost.ScopeAPI, …) and returns its secret.
func (s *Server) CreateToken(username string, scopes ...string) (string, error) {
	return s.createToken(username, nil, scopes)
}

// CreateTokenExpiring is CreateToken for a token that stops working when
// the fake clock reaches the start of the day expires (UTC).
func (s *Server) CreateTokenExpiring(username string, expires time.Time, scopes ...string) (string, error) {
	day := time.Date(expires.Year(), expires.Month(), expires.Day(), 0, 0, 0, 0, time.UTC)
	return s.createToken(username, &day, scopes)
}

func (s *Server) createToken(username string, expires *time.Time, scopes []string) (string, error) {
	if len(scopes) == 0 {
		return "", errors.New("sourcehostfake: a token needs at least one scope")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	u := s.st.userByName[strings.ToLower(username)]
	if u == nil {
		return "", fmt.Errorf("sourcehostfake: no user %q", username)
	}
	t, err := s.st.addToken(u, "token-"+fmt.Sprint(s.st.seq["token"]+1), "", scopes, expires)
	if err != nil {
		return "", err
	}
	return t.secret, nil
}

// RevokeToken revokes a token: requests with it are refused with 401.
func (s *Server) RevokeToken(secret string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.st.tokens[secret]
	if t == nil {
		return errors.New("sourcehostfake: no such token")
	}
	t.revoked = true
	return nil
}

// AddGroup adds a group namespace and returns its id.
func (s *Server) AddGroup(path, name string) (int64, error) {
	if !projectPathRE.MatchString(path) {
		return 0, fmt.Errorf("sourcehostfake: invalid group path %q", path)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.st.nsByPath[strings.ToLower(path)] != nil {
		return 0, fmt.Errorf("sourcehostfake: namespace %q is taken", path)
	}
	if name == "" {
		name = path
	}
	return s.st.addNamespace(name, path, "group", nil).id, nil
}

// AddGroupMember gives a user an access level (Guest … Owner) in a group,
// and so in all its projects.
func (s *Server) AddGroupMember(groupPath, username string, level int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	ns := s.st.nsByPath[strings.ToLower(groupPath)]
	u := s.st.userByName[strings.ToLower(username)]
	switch {
	case ns == nil || ns.kind != "group":
		return fmt.Errorf("sourcehostfake: no group %q", groupPath)
	case u == nil:
		return fmt.Errorf("sourcehostfake: no user %q", username)
	case level < Guest || level > Owner:
		return fmt.Errorf("sourcehostfake: invalid access level %d", level)
	}
	ns.members[u.id] = level
	return nil
}

// AddProjectMember gives a user an access level (Guest … Owner) in a project.
func (s *Server) AddProjectMember(projectID int64, username string, level int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.st.projByID[projectID]
	u := s.st.userByName[strings.ToLower(username)]
	switch {
	case p == nil:
		return fmt.Errorf("sourcehostfake: no project %d", projectID)
	case u == nil:
		return fmt.Errorf("sourcehostfake: no user %q", username)
	case level < Guest || level > Owner:
		return fmt.Errorf("sourcehostfake: invalid access level %d", level)
	}
	p.members[u.id] = level
	return nil
}

// ProjectSeed describes a project to add.
type ProjectSeed struct {
	Owner         string // the owning user; default root (ignored when Group is set)
	Group         string // a group path, to put the project in a group
	Name          string // required
	Path          string // default derived from Name
	Description   string
	Visibility    string // private (default), internal or public
	DefaultBranch string // default "main"
	Topics        []string
}

// AddProject adds a project with an empty repository and returns its id.
func (s *Server) AddProject(seed ProjectSeed) (int64, error) {
	if seed.Name == "" || !projectNameRE.MatchString(seed.Name) {
		return 0, fmt.Errorf("sourcehostfake: invalid project name %q", seed.Name)
	}
	if seed.Path == "" {
		seed.Path = pathFromName(seed.Name)
	}
	if !projectPathRE.MatchString(seed.Path) {
		return 0, fmt.Errorf("sourcehostfake: invalid project path %q", seed.Path)
	}
	switch seed.Visibility {
	case "":
		seed.Visibility = "private"
	case "private", "internal", "public":
	default:
		return 0, fmt.Errorf("sourcehostfake: invalid visibility %q", seed.Visibility)
	}
	if seed.DefaultBranch == "" {
		seed.DefaultBranch = "main"
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	owner := s.root
	if seed.Owner != "" {
		if owner = s.st.userByName[strings.ToLower(seed.Owner)]; owner == nil {
			return 0, fmt.Errorf("sourcehostfake: no user %q", seed.Owner)
		}
	}
	ns := owner.ns
	if seed.Group != "" {
		if ns = s.st.nsByPath[strings.ToLower(seed.Group)]; ns == nil || ns.kind != "group" {
			return 0, fmt.Errorf("sourcehostfake: no group %q", seed.Group)
		}
	}
	if s.st.projByPath[strings.ToLower(ns.fullPath+"/"+seed.Path)] != nil {
		return 0, fmt.Errorf("sourcehostfake: project %s/%s exists", ns.fullPath, seed.Path)
	}
	p := s.st.addProject(ns, owner, seed.Name, seed.Path, seed.Description, seed.Visibility, seed.DefaultBranch)
	p.topics = slices.Clone(seed.Topics)
	return p.id, nil
}

// StarProject stars a project for a user.
func (s *Server) StarProject(username string, projectID int64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	u := s.st.userByName[strings.ToLower(username)]
	p := s.st.projByID[projectID]
	if u == nil || p == nil {
		return fmt.Errorf("sourcehostfake: no user %q or project %d", username, projectID)
	}
	if !u.starred[projectID] {
		u.starred[projectID] = true
		p.starCount++
	}
	return nil
}

// PushFiles commits files (path to content; nil content deletes) to a
// branch as root, creating the branch from the default branch or, in an
// empty repository, as its first commit, and returns the commit's SHA. It
// fires push webhooks, and starts a pipeline when the branch then holds
// the CI definition file.
func (s *Server) PushFiles(projectID int64, branch string, files map[string][]byte, message string) (string, error) {
	if !validBranchName(branch) {
		return "", fmt.Errorf("sourcehostfake: invalid branch name %q", branch)
	}
	if message == "" {
		message = "Update " + strings.Join(slices.Sorted(maps.Keys(files)), ", ")
	}
	s.mu.Lock()
	p := s.st.projByID[projectID]
	if p == nil {
		s.mu.Unlock()
		return "", fmt.Errorf("sourcehostfake: no project %d", projectID)
	}
	var changes []fileChange
	for _, path := range slices.Sorted(maps.Keys(files)) {
		path = strings.Trim(path, "/")
		if path == "" || slices.Contains(strings.Split(path, "/"), "..") {
			s.mu.Unlock()
			return "", fmt.Errorf("sourcehostfake: invalid file path %q", path)
		}
		changes = append(changes, fileChange{path: path, data: files[path]})
	}
	start := ""
	if p.repo.branches[branch] == nil && p.repo.branches[p.defaultBranch] != nil {
		start = p.defaultBranch
	}
	before := p.repo.branches[branch]
	c := s.internalCall(s.root)
	cm, err := s.st.commitFiles(p, branch, start, changes, message, s.root.name, s.root.email)
	if err != nil {
		s.mu.Unlock()
		return "", fmt.Errorf("sourcehostfake: %w", err)
	}
	c.queuePush(p, branch, before, cm)
	s.mu.Unlock()
	s.deliver(c.events)
	return cm.sha, nil
}

// PushFile is PushFiles for one file.
func (s *Server) PushFile(projectID int64, branch, path, content, message string) (string, error) {
	return s.PushFiles(projectID, branch, map[string][]byte{path: []byte(content)}, message)
}

// internalCall is a call made by the fake itself, as u. s.mu must be held.
func (s *Server) internalCall(u *user) *call {
	return &call{s: s, st: s.st, user: u, base: s.external}
}

// Reading state back: each returns what the API would show an
// administrator, in the client's types.

// Project returns a project, or nil.
func (s *Server) Project(id int64) *sourcehost.Project {
	return readBack[sourcehost.Project](s, func(c *call) any {
		if p := s.st.projByID[id]; p != nil {
			return c.renderProject(p, true)
		}
		return nil
	})
}

// Issues returns a project's issues in creation order.
func (s *Server) Issues(projectID int64) []*sourcehost.Issue {
	return readBackAll[sourcehost.Issue](s, projectID, func(c *call, p *project) any { return renderAll(p.issues, c.renderIssue) })
}

// MergeRequests returns a project's merge requests in creation order.
func (s *Server) MergeRequests(projectID int64) []*sourcehost.MergeRequest {
	return readBackAll[sourcehost.MergeRequest](s, projectID, func(c *call, p *project) any { return renderAll(p.mrs, c.renderMR) })
}

// Pipelines returns a project's pipelines in creation order.
func (s *Server) Pipelines(projectID int64) []*sourcehost.Pipeline {
	return readBackAll[sourcehost.Pipeline](s, projectID, func(c *call, p *project) any {
		return renderAll(p.pipelines, func(pl *pipeline) *pipelineJSON { return c.renderPipeline(pl, true) })
	})
}

// Hooks returns a project's webhooks.
func (s *Server) Hooks(projectID int64) []*sourcehost.ProjectHook {
	return readBackAll[sourcehost.ProjectHook](s, projectID, func(_ *call, p *project) any { return renderAll(p.hooks, renderHook) })
}

// readBack renders under the lock and decodes into the client's type, so
// what a test reads back is exactly what the API would answer.
func readBack[T any](s *Server, render func(*call) any) *T {
	s.mu.Lock()
	v := render(s.internalCall(s.root))
	var b []byte
	var err error
	if v != nil {
		b, err = json.Marshal(v)
	}
	s.mu.Unlock()
	if v == nil || err != nil {
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
