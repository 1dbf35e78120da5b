package sourcehostfake

import (
	"crypto/rand"
	"crypto/sha1" //nolint:gosec // git object ids are SHA-1 by definition
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/apitwin/apitwin/clock"
)

// Access levels of project and group members.
const (
	NoAccess   = 0
	Guest      = 10
	Reporter   = 20
	Developer  = 30
	Maintainer = 40
	Owner      = 50
)

// state is everything the fake holds. Server.mu guards it.
type state struct {
	clock *clock.Fake
	seq   map[string]int64 // last id given per kind

	users      map[int64]*user
	userByName map[string]*user // lower-case username
	tokens     map[string]*token
	oauth      *oauthState // the OAuth applications, codes and refresh tokens (oauth.go)
	nss        map[int64]*namespace
	nsByPath   map[string]*namespace // lower-case full path
	projects   []*project            // in id order
	projByID   map[int64]*project
	projByPath map[string]*project // lower-case full path
	// marked counts the projects marked for deletion (deletion.go), or
	// more: deleteDue counts them again as it looks.
	marked int
	// nextDue is when the first marked project or group falls due, as
	// deleteDue last saw them; zero: look at them on the next request.
	nextDue time.Time
	// jobTokens are the CI/CD job tokens handed out (Server.JobToken), by
	// secret; a token works while its job runs.
	jobTokens map[string]*ciJob
}

func newState(clk *clock.Fake) *state {
	return &state{
		clock:      clk,
		seq:        map[string]int64{},
		users:      map[int64]*user{},
		userByName: map[string]*user{},
		tokens:     map[string]*token{},
		oauth:      newOAuthState(),
		nss:        map[int64]*namespace{},
		nsByPath:   map[string]*namespace{},
		projByID:   map[int64]*project{},
		projByPath: map[string]*project{},
	}
}

func (st *state) next(kind string) int64 {
	st.seq[kind]++
	return st.seq[kind]
}

type user struct {
	id        int64
	username  string
	name      string
	email     string
	admin     bool
	state     string
	createdAt time.Time
	ns        *namespace
	starred   map[int64]bool
}

type token struct {
	id        int64
	secret    string
	name      string
	user      *user
	scopes    []string
	createdAt time.Time
	expiresAt *time.Time // a date; the token stops working when it begins
	revoked   bool
	lastUsed  *time.Time
	oauth     *oauthToken // an OAuth access token's row (oauth.go); nil for a personal access token
}

type namespace struct {
	id       int64
	name     string
	path     string
	kind     string // user or group
	fullPath string
	owner    *user         // user namespaces
	members  map[int64]int // group members' access levels
	// A group's: its parent (nil for a top-level group), description,
	// visibility (public, internal or private) and creation time.
	parent      *namespace
	description string
	visibility  string
	createdAt   time.Time
	// markedForDeletion is when DELETE marked the group, with a deletion
	// adjourned period (deletion.go); nil when it is not marked.
	markedForDeletion *time.Time
}

// fullName is the namespace's name with its parents': "Group / Sub".
func (ns *namespace) fullName() string {
	if ns.parent == nil {
		return ns.name
	}
	return ns.parent.fullName() + " / " + ns.name
}

// within reports whether ns is anc or one of its descendants.
func (ns *namespace) within(anc *namespace) bool {
	for n := ns; n != nil; n = n.parent {
		if n == anc {
			return true
		}
	}
	return false
}

type project struct {
	id            int64
	name          string
	path          string
	description   string
	ns            *namespace
	visibility    string
	defaultBranch string
	topics        []string
	creator       *user
	members       map[int64]int
	memberSince   map[int64]time.Time // when each direct member was added
	memberExpires map[int64]string    // a direct member's expires_at date, if any
	starCount     int
	createdAt     time.Time
	lastActivity  time.Time
	archived      bool // read-only: writes to what it holds are refused
	// markedForDeletion is when DELETE marked it, with a deletion
	// adjourned period (deletion.go); nil when it is not marked.
	markedForDeletion *time.Time
	forkedFrom        *project // the project it was forked from, while that exists
	forks             int      // the projects forked from it that exist

	issues     []*issue
	mrs        []*mergeRequest
	labels     []*label     // by name, case-insensitively unique
	milestones []*milestone // in id order
	protected  []*protectedBranch
	releases   []*release
	hooks      []*hook
	pipelines  []*pipeline   // in id order: listPipelines cuts its default page from it
	variables  []*ciVariable // CI/CD variables, in id order
	triggers   []*pipelineTrigger
	schedules  []*pipelineSchedule
	repo       repo
}

func (p *project) fullPath() string { return p.ns.fullPath + "/" + p.path }
func (p *project) fullName() string { return p.ns.fullName() + " / " + p.name }

type issue struct {
	id           int64
	iid          int64
	project      *project
	title        string
	description  string
	state        string
	labels       []string
	author       *user
	assignees    []*user
	confidential bool
	createdAt    time.Time
	updatedAt    time.Time
	closedAt     *time.Time
	closedBy     *user
	notes        []*note
	milestone    *milestone
}

type mergeRequest struct {
	id                 int64
	iid                int64
	project            *project
	title              string
	description        string
	state              string
	sourceBranch       string
	targetBranch       string
	labels             []string
	author             *user
	assignees          []*user
	removeSourceBranch bool
	mergeCommitSHA     string
	createdAt          time.Time
	updatedAt          time.Time
	mergedAt           *time.Time
	mergedBy           *user
	closedAt           *time.Time
	closedBy           *user
	notes              []*note
	milestone          *milestone
	commits            []*commit // what it brought, kept when it is merged
	approvals          []approval
	mergeError         string // why the last rebase failed (rebase.go), "" when none
}

// approval is a user's approval of a merge request.
type approval struct {
	user *user
	at   time.Time
}

// label is a project's label.
type label struct {
	id          int64
	name        string
	color       string
	description string
	priority    *int64
}

// milestone is a project's milestone.
type milestone struct {
	id          int64
	iid         int64
	project     *project
	title       string
	description string
	state       string // active or closed
	dueDate     string // YYYY-MM-DD or ""
	startDate   string
	createdAt   time.Time
	updatedAt   time.Time
}

// note is a comment on an issue or a merge request, or a system note the
// fake wrote itself on a change.
type note struct {
	id        int64
	body      string
	author    *user
	system    bool
	internal  bool
	createdAt time.Time
	updatedAt time.Time
	// The issue or merge request it is on.
	noteableType string // "Issue" or "MergeRequest"
	noteableID   int64
	noteableIID  int64
	project      *project
	// The thread it is in: its own (an individual note), or one started
	// through the discussions API, whose notes are DiscussionNotes that
	// can be resolved.
	discussionID   string
	discussionNote bool
	resolved       bool
	resolvedBy     *user
	resolvedAt     *time.Time
}

type hook struct {
	id               int64
	project          *project
	url              string
	token            string
	events           map[string]bool // by form field name: push_events, issues_events, …
	pushBranchFilter string
	sslVerify        bool
	createdAt        time.Time
}

type pipeline struct {
	id         int64
	iid        int64
	project    *project
	ref        string
	tag        bool // ref names a tag, not a branch
	sha        string
	status     string
	source     string
	user       *user
	variables  map[string]string
	createdAt  time.Time
	updatedAt  time.Time
	startedAt  *time.Time
	finishedAt *time.Time
	timer      *clock.Timer // the next automatic status change
	jobs       []*ciJob     // in id order
}

// repo is a project's repository: branches pointing at commits, each
// commit holding a full snapshot of the files.
type repo struct {
	branches map[string]*commit
	commits  map[string]*commit
	tags     map[string]*tag
}

// tag is a repository tag: lightweight, or annotated with a message.
type tag struct {
	name      string
	commit    *commit
	message   string    // "" for a lightweight tag
	sha       string    // the tag object's id (annotated), else the commit's
	createdAt time.Time // annotated tags only
}

// protectedBranch is a branch name (or a wildcard such as "release/*")
// that only users of the given levels may push or merge to, and that
// cannot be deleted.
type protectedBranch struct {
	id             int64
	name           string
	push           int
	merge          int
	allowForcePush bool
}

// release is a project's release, tied to a tag.
type release struct {
	id          int64
	tagName     string
	name        string
	description string
	author      *user
	sha         string // the tagged commit's, when the release was made
	milestones  []*milestone
	createdAt   time.Time
	releasedAt  time.Time
}

type commit struct {
	sha         string
	parents     []*commit
	message     string
	authorName  string
	authorEmail string
	at          time.Time
	files       map[string]*blob
	added       []string
	modified    []string
	removed     []string
}

type blob struct {
	data []byte
	sha  string // the git blob id
}

func newBlob(data []byte) *blob {
	h := sha1.New() //nolint:gosec // git's object id
	fmt.Fprintf(h, "blob %d\x00", len(data))
	h.Write(data)
	return &blob{data: data, sha: hex.EncodeToString(h.Sum(nil))}
}

// --- users, tokens, namespaces ---

var usernameRE = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]*$`)

func (st *state) addUser(username, name, email string, admin bool) *user {
	u := &user{id: st.next("user"), username: username, name: name, email: email, admin: admin, state: "active",
		createdAt: st.clock.Now(), starred: map[int64]bool{}}
	st.users[u.id] = u
	st.userByName[strings.ToLower(username)] = u
	u.ns = st.addNamespace(username, username, "user", u)
	return u
}

func (st *state) addNamespace(name, path, kind string, owner *user) *namespace {
	ns := &namespace{id: st.next("namespace"), name: name, path: path, kind: kind, fullPath: path, owner: owner, members: map[int64]int{}}
	st.nss[ns.id] = ns
	st.nsByPath[strings.ToLower(path)] = ns
	return ns
}

func (st *state) addToken(u *user, name, secret string, scopes []string, expires *time.Time) (*token, error) {
	if secret == "" {
		secret = randomSecret(patPrefix, 15)
	}
	if _, dup := st.tokens[secret]; dup {
		return nil, errors.New("sourcehostfake: that token secret is already in use")
	}
	t := &token{id: st.next("token"), secret: secret, name: name, user: u, scopes: slices.Clone(scopes),
		createdAt: st.clock.Now(), expiresAt: expires}
	st.tokens[secret] = t
	return t, nil
}

// The prefixes of the tokens the fake makes, as the real service's tokens
// carry their kind.
const (
	patPrefix          = "shpat-" // personal access tokens
	jobTokenPrefix     = "shjob-" // CI job tokens
	triggerTokenPrefix = "shptt-" // pipeline trigger tokens
)

// randomSecret is prefix, then n random bytes in hex: every secret,
// token, code and client id the fake makes.
func randomSecret(prefix string, n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return prefix + hex.EncodeToString(b)
}

// tokenState says why a token does not work, or "" when it does.
func (st *state) tokenState(t *token) string {
	switch {
	case t.revoked:
		return "Token was revoked. You have to re-authorize from the user."
	case t.expiresAt != nil && !st.clock.Now().Before(*t.expiresAt):
		return "Token has expired."
	}
	return ""
}

// --- projects and access ---

// project finds a project by id or by full path (the {id} of a route).
func (st *state) project(ref string) *project {
	if id, err := strconv.ParseInt(ref, 10, 64); err == nil {
		return st.projByID[id]
	}
	return st.projByPath[strings.ToLower(strings.Trim(ref, "/"))]
}

// access is a user's access level to a project (nil user: anonymous).
func (st *state) access(u *user, p *project) int {
	if u == nil {
		return NoAccess
	}
	if u.admin {
		return Owner
	}
	level := p.members[u.id]
	if p.ns.kind == "user" && p.ns.owner == u {
		level = Owner
	}
	return max(level, st.groupAccess(u, p.ns))
}

// groupAccess is a user's access level in a group namespace: the highest
// of its own membership and its ancestors' (0 for a user namespace).
func (st *state) groupAccess(u *user, ns *namespace) int {
	level := NoAccess
	for n := ns; n != nil && n.kind == "group"; n = n.parent {
		level = max(level, n.members[u.id])
	}
	return level
}

// canSee reports whether a user may see a project at all.
func (st *state) canSee(u *user, p *project) bool {
	switch p.visibility {
	case "public":
		return true
	case "internal":
		return u != nil
	}
	return st.access(u, p) >= Guest
}

// canReadCode reports whether a user may read a project's repository:
// everyone who can see a public or internal project, reporters and above
// of a private one.
func (st *state) canReadCode(u *user, p *project) bool {
	if !st.canSee(u, p) {
		return false
	}
	return p.visibility != "private" || st.access(u, p) >= Reporter
}

var (
	projectNameRE = regexp.MustCompile(`^[\p{L}\p{N}_][\p{L}\p{N}_.+\- ]*$`)
	projectPathRE = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]*$`)
	nonPathChars  = regexp.MustCompile(`[^a-z0-9_.]+`)
)

// pathFromName derives a project path from its name the way the real
// service does: lower case, runs of other characters become one dash.
func pathFromName(name string) string {
	return strings.Trim(nonPathChars.ReplaceAllString(strings.ToLower(name), "-"), "-._")
}

func (st *state) addProject(ns *namespace, creator *user, name, path, description, visibility, defaultBranch string) *project {
	now := st.clock.Now()
	p := &project{id: st.next("project"), name: name, path: path, description: description, ns: ns, visibility: visibility,
		defaultBranch: defaultBranch, creator: creator, members: map[int64]int{}, memberSince: map[int64]time.Time{},
		memberExpires: map[int64]string{}, createdAt: now, lastActivity: now,
		repo: repo{branches: map[string]*commit{}, commits: map[string]*commit{}, tags: map[string]*tag{}}}
	// The default branch is protected, as the real service protects it:
	// maintainers push, developers merge.
	p.protected = append(p.protected, &protectedBranch{id: st.next("protected_branch"), name: defaultBranch, push: Maintainer, merge: Developer})
	if ns.kind == "group" && creator != nil {
		p.members[creator.id] = Maintainer
		st.made("member", 1)
	}
	st.projects = append(st.projects, p)
	st.projByID[p.id] = p
	st.projByPath[strings.ToLower(p.fullPath())] = p
	return p
}

func (st *state) userByID(id int64) *user { return st.users[id] }

// --- repository ---

// resolve finds the commit a ref names: a branch, else a tag, else a commit SHA (or a
// unique prefix of at least 7 characters).
func (r *repo) resolve(ref string) *commit {
	if c := r.branches[ref]; c != nil {
		return c
	}
	if t := r.tags[ref]; t != nil {
		return t.commit
	}
	if c := r.commits[ref]; c != nil {
		return c
	}
	if len(ref) >= 7 {
		var found *commit
		for sha, c := range r.commits {
			if strings.HasPrefix(sha, ref) {
				if found != nil {
					return nil
				}
				found = c
			}
		}
		return found
	}
	return nil
}

// fileChange is one file of a commit: its new content, or nil to delete
// it. The blob (and so its hash) is made before the state is locked.
type fileChange struct {
	path string
	blob *blob
}

// commitFiles makes a commit on branch (creating the branch from start, or
// as the first commit of an empty repository) and returns it.
func (st *state) commitFiles(p *project, branch, start string, changes []fileChange, message, authorName, authorEmail string) (*commit, error) {
	parent := p.repo.branches[branch]
	if parent == nil && start != "" {
		parent = p.repo.resolve(start)
		if parent == nil {
			//lint:ignore ST1005 GitLab's own message, as its API words it
			return nil, fmt.Errorf("Invalid reference name: %s", start)
		}
	}
	if parent == nil && len(p.repo.branches) > 0 {
		//lint:ignore ST1005 GitLab's own message, as its API words it
		return nil, fmt.Errorf("You can only create or edit files when you are on a branch")
	}
	var parents []*commit
	if parent != nil {
		parents = []*commit{parent}
	}
	return st.commit(p, branch, parents, changes, message, authorName, authorEmail), nil
}

// commit records a commit on branch with the given parents: the first
// parent's files with changes applied. s.mu must be held.
func (st *state) commit(p *project, branch string, parents []*commit, changes []fileChange, message, authorName, authorEmail string) *commit {
	files := map[string]*blob{}
	if len(parents) > 0 {
		files = maps.Clone(parents[0].files)
	}
	c := &commit{parents: parents, message: message, authorName: authorName, authorEmail: authorEmail, at: st.clock.Now(), files: files}
	for _, ch := range changes {
		old, existed := files[ch.path]
		switch {
		case ch.blob == nil && existed:
			delete(files, ch.path)
			c.removed = append(c.removed, ch.path)
		case ch.blob == nil:
			continue
		case !existed:
			files[ch.path] = ch.blob
			c.added = append(c.added, ch.path)
		case old.sha != ch.blob.sha:
			files[ch.path] = ch.blob
			c.modified = append(c.modified, ch.path)
		}
	}
	c.sha = commitSHA(c)
	if _, had := p.repo.branches[branch]; !had {
		st.made("branch", 1)
	}
	st.made("commit", 1)
	st.made(repoBytes, commitCost(c))
	p.repo.commits[c.sha] = c
	p.repo.branches[branch] = c
	p.lastActivity = c.at
	return c
}

func commitSHA(c *commit) string {
	h := sha1.New() //nolint:gosec // git's object id
	for _, parent := range c.parents {
		h.Write([]byte(parent.sha))
	}
	fmt.Fprintf(h, "\x00%s\x00%s\x00%s\x00%d\x00", c.message, c.authorName, c.authorEmail, c.at.UnixNano())
	for _, path := range slices.Sorted(maps.Keys(c.files)) {
		fmt.Fprintf(h, "%s\x00%s\x00", path, c.files[path].sha)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// lastCommitFor finds the newest commit reachable from head that changed
// path.
func lastCommitFor(head *commit, path string) *commit {
	return newestMatching(head, func(c *commit) bool {
		return slices.Contains(c.added, path) || slices.Contains(c.modified, path)
	})
}

// newestMatching walks head's history breadth first, not past commits that
// match, and returns the newest match.
func newestMatching(head *commit, match func(*commit) bool) *commit {
	seen := map[string]bool{}
	queue := []*commit{head}
	var best *commit
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		if seen[c.sha] {
			continue
		}
		seen[c.sha] = true
		if match(c) {
			if best == nil || c.at.After(best.at) {
				best = c
			}
			continue
		}
		queue = append(queue, c.parents...)
	}
	return best
}

// ancestors returns the SHAs reachable from c, itself included.
func ancestors(c *commit) map[string]bool {
	seen := map[string]bool{}
	stack := []*commit{c}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[n.sha] {
			continue
		}
		seen[n.sha] = true
		stack = append(stack, n.parents...)
	}
	return seen
}

// mergeBase finds the newest commit reachable from both a and b.
func mergeBase(a, b *commit) *commit {
	inA := ancestors(a)
	return newestMatching(b, func(c *commit) bool { return inA[c.sha] })
}

// countCommits counts the commits reachable from c.
func countCommits(c *commit) int64 {
	if c == nil {
		return 0
	}
	return int64(len(ancestors(c)))
}
