package sourcehostfake

import (
	"cmp"
	"crypto/sha1" //nolint:gosec // git's object ids
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"maps"
	"net/http"
	"path"
	"slices"
	"strings"

	"github.com/apitwin/apitwin/internal/fakekit"
)

func (c *call) repoProject() (*project, *fakekit.Answer) {
	pr, fail := c.project()
	if fail != nil {
		return nil, fail
	}
	if !c.st.canReadCode(c.user, pr) {
		a := forbidden()
		return nil, &a
	}
	return pr, nil
}

// fileAt is the request's file_path at ref in pr's repository: the commit
// ref names, the path, and the file; GitLab's 404 when either is missing.
func (c *call) fileAt(pr *project, ref string) (head *commit, file string, b *blob, fail *fakekit.Answer) {
	if head = pr.repo.resolve(ref); head == nil {
		a := notFound("Commit")
		return nil, "", nil, &a
	}
	file = strings.TrimPrefix(c.r.PathValue("file_path"), "/")
	if b = head.files[file]; b == nil {
		a := notFound("File")
		return nil, "", nil, &a
	}
	return head, file, b, nil
}

func (c *call) getFile() fakekit.Answer {
	pr, fail := c.repoProject()
	if fail != nil {
		return *fail
	}
	ref := c.p.required("ref")
	if msg := c.p.problem(); msg != "" {
		return badRequest(msg)
	}
	head, file, b, fail := c.fileAt(pr, ref)
	if fail != nil {
		return *fail
	}
	sum := sha256.Sum256(b.data)
	out := fileJSON{FileName: path.Base(file), FilePath: file, Size: len(b.data), Encoding: "base64",
		ContentSHA256: hex.EncodeToString(sum[:]), Ref: ref, BlobID: b.sha, CommitID: head.sha, Content: encodeContent(b.data)}
	if last := lastCommitFor(head, file); last != nil {
		out.LastCommitID = last.sha
	}
	return ok(out)
}

func (c *call) getRawFile() fakekit.Answer {
	pr, fail := c.repoProject()
	if fail != nil {
		return *fail
	}
	ref, ok := c.p.str("ref")
	if !ok || ref == "" {
		ref = pr.defaultBranch
	}
	_, _, b, fail := c.fileAt(pr, ref)
	if fail != nil {
		return *fail
	}
	return fakekit.Answer{Status: http.StatusOK, Raw: b.data, ContentType: "text/plain; charset=utf-8"}
}

func (c *call) createFile() fakekit.Answer {
	pr, fail := c.project()
	if fail != nil {
		return *fail
	}
	if fail := c.atLeast(pr, Developer); fail != nil {
		return *fail
	}
	p := c.p
	branch := p.required("branch")
	if fail := c.mayPush(pr, branch); fail != nil {
		return *fail
	}
	content, hasContent := p.str("content")
	if !hasContent {
		p.fail("content", "is missing")
	}
	msg := p.required("commit_message")
	encoding, _ := p.oneOf("encoding", "text", "base64")
	authorName, _ := p.str("author_name")
	authorEmail, _ := p.str("author_email")
	start, _ := p.str("start_branch")
	if problem := p.problem(); problem != "" {
		return badRequest(problem)
	}
	b := p.blob
	if b == nil { // prepareFile found no content to hash: say why
		data, err := fileContent(content, encoding)
		if err != nil {
			return badRequest("content is invalid")
		}
		b = newBlob(data)
	}
	file := strings.Trim(c.r.PathValue("file_path"), "/")
	if file == "" || slices.Contains(strings.Split(file, "/"), "..") {
		return message(http.StatusBadRequest, "Your changes could not be committed, because the file path is invalid")
	}
	before := pr.repo.branches[branch]
	if before != nil && before.files[file] != nil {
		return message(http.StatusBadRequest, "A file with this name already exists")
	}
	if authorName == "" {
		authorName, authorEmail = c.user.name, c.user.email
	}
	cm, err := c.st.commitFiles(pr, branch, start, []fileChange{{path: file, blob: b}}, msg, authorName, authorEmail)
	if err != nil {
		return message(http.StatusBadRequest, err.Error())
	}
	c.queuePush(pr, branch, before, cm)
	return created(map[string]string{"file_path": file, "branch": branch})
}

// prepareFile decodes and hashes a new file's content before the state is
// locked (it may be as big as the body limit). Problems are left for
// createFile to report.
func prepareFile(p *params) {
	q := *p
	q.errs = nil
	content, ok := q.str("content")
	encoding, _ := q.oneOf("encoding", "text", "base64")
	if !ok || len(q.errs) > 0 {
		return
	}
	if data, err := fileContent(content, encoding); err == nil {
		p.blob = newBlob(data)
	}
}

// fileContent decodes content sent with encoding "text" (or none) or
// "base64".
func fileContent(content, encoding string) ([]byte, error) {
	if encoding == "base64" {
		return base64.StdEncoding.DecodeString(content)
	}
	return []byte(content), nil
}

func (c *call) listTree() fakekit.Answer {
	pr, fail := c.repoProject()
	if fail != nil {
		return *fail
	}
	dir, _ := c.p.str("path")
	ref, hasRef := c.p.str("ref")
	recursive, _ := c.p.boolean("recursive")
	if msg := c.p.problem(); msg != "" {
		return badRequest(msg)
	}
	if !hasRef || ref == "" {
		ref = pr.defaultBranch
	}
	head := pr.repo.resolve(ref)
	if head == nil {
		return notFound("Tree")
	}
	entries := treeEntries(head, strings.Trim(dir, "/"), recursive)
	if entries == nil {
		return notFound("Tree")
	}
	var page []treeJSON
	if mode, _ := c.p.oneOf("pagination", "offset", "keyset"); mode == "keyset" {
		page, fail = keyedPage(c, entries, pageToken(entries, func(e treeJSON) string { return e.ID })) // keyset.go
	} else {
		page, fail = paginate(c, entries)
	}
	if fail != nil {
		return *fail
	}
	return ok(page)
}

// treeEntries lists dir of a commit's snapshot: directories first, then
// files, each by path. nil means dir does not exist.
func treeEntries(head *commit, dir string, recursive bool) []treeJSON {
	prefix := ""
	if dir != "" {
		prefix = dir + "/"
	}
	trees := map[string]bool{}
	var out []treeJSON
	for file, b := range head.files {
		if !strings.HasPrefix(file, prefix) {
			continue
		}
		rest := strings.TrimPrefix(file, prefix)
		parts := strings.Split(rest, "/")
		if !recursive && len(parts) > 1 {
			trees[prefix+parts[0]] = true
			continue
		}
		for i := 1; i < len(parts); i++ {
			trees[prefix+strings.Join(parts[:i], "/")] = true
		}
		out = append(out, treeJSON{ID: b.sha, Name: path.Base(file), Type: "blob", Path: file, Mode: "100644"})
	}
	if len(out) == 0 && len(trees) == 0 {
		return nil
	}
	for t := range trees {
		h := sha1.Sum([]byte(head.sha + "\x00" + t)) //nolint:gosec // a stable fake tree id
		out = append(out, treeJSON{ID: hex.EncodeToString(h[:]), Name: path.Base(t), Type: "tree", Path: t, Mode: "040000"})
	}
	slices.SortFunc(out, func(a, b treeJSON) int {
		if a.Type != b.Type {
			return cmp.Compare(b.Type, a.Type) // "tree" before "blob"
		}
		return cmp.Compare(a.Path, b.Path)
	})
	return out
}

func (c *call) getCommit() fakekit.Answer {
	pr, fail := c.repoProject()
	if fail != nil {
		return *fail
	}
	cm := pr.repo.resolve(c.r.PathValue("sha"))
	if cm == nil {
		return notFound("Commit")
	}
	return ok(c.renderCommit(pr, cm))
}

func (c *call) renderBranch(pr *project, name string, head *commit) branchJSON {
	merged := false
	if def := pr.repo.branches[pr.defaultBranch]; def != nil && name != pr.defaultBranch {
		merged = ancestors(def)[head.sha]
	}
	level := c.st.access(c.user, pr)
	out := branchJSON{Name: name, Commit: c.renderCommit(pr, head), Merged: merged, CanPush: level >= Developer,
		Default: name == pr.defaultBranch, WebURL: c.base + "/" + pr.fullPath() + "/-/tree/" + name}
	if pb := pr.protection(name); pb != nil {
		out.Protected, out.CanPush = true, level >= Developer && level >= pb.push
		out.DevelopersCanPush, out.DevelopersCanMerge = pb.push <= Developer, pb.merge <= Developer
	}
	return out
}

func (c *call) listBranches() fakekit.Answer {
	pr, fail := c.repoProject()
	if fail != nil {
		return *fail
	}
	search, _ := c.p.str("search")
	if msg := c.p.problem(); msg != "" {
		return badRequest(msg)
	}
	var names []string
	for name := range pr.repo.branches {
		if search == "" || containsFold(name, search) {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	page, fail := paginate(c, names)
	if fail != nil {
		return *fail
	}
	return ok(renderAll(page, func(name string) branchJSON { return c.renderBranch(pr, name, pr.repo.branches[name]) }))
}

func (c *call) createBranch() fakekit.Answer {
	pr, fail := c.project()
	if fail != nil {
		return *fail
	}
	if fail := c.atLeast(pr, Developer); fail != nil {
		return *fail
	}
	name := c.p.required("branch")
	ref := c.p.required("ref")
	if msg := c.p.problem(); msg != "" {
		return badRequest(msg)
	}
	head, fail := c.branchFrom(pr, name, ref)
	if fail != nil {
		return *fail
	}
	return created(c.renderBranch(pr, name, head))
}

// branchFrom creates branch name at ref and queues its push event. s.mu
// must be held.
func (c *call) branchFrom(pr *project, name, ref string) (*commit, *fakekit.Answer) {
	if !validBranchName(name) {
		return nil, errAnswer(message(http.StatusBadRequest, "Branch name is invalid"))
	}
	if pr.repo.branches[name] != nil {
		return nil, errAnswer(message(http.StatusBadRequest, "Branch already exists"))
	}
	head := pr.repo.resolve(ref)
	if head == nil {
		return nil, errAnswer(message(http.StatusBadRequest, "Invalid reference name: "+ref))
	}
	pr.repo.branches[name] = head
	c.st.made("branch", 1)
	pr.lastActivity = c.st.clock.Now()
	c.queuePush(pr, name, nil, head)
	return head, nil
}

// validBranchName applies git's rules for ref names, in short.
func validBranchName(name string) bool {
	if name == "" || strings.HasPrefix(name, "-") || strings.HasPrefix(name, "/") || strings.HasSuffix(name, "/") ||
		strings.HasSuffix(name, ".lock") || strings.HasSuffix(name, ".") || strings.Contains(name, "..") ||
		strings.Contains(name, "//") || strings.Contains(name, "@{") || name == "HEAD" {
		return false
	}
	return !strings.ContainsAny(name, " ~^:?*[\\\x7f") && !strings.ContainsFunc(name, func(r rune) bool { return r < 0x20 })
}

// BranchSeed is a branch to add (AddBranch, ProjectSeed.Branches).
type BranchSeed struct {
	Name string `json:"name" yaml:"name"`
	// Ref is where the branch starts: a branch or a commit SHA; empty
	// means the default branch.
	Ref string `json:"ref,omitempty" yaml:"ref,omitempty"`
	// Files (path → content) are committed to the new branch, as root.
	Files map[string]string `json:"files,omitempty" yaml:"files,omitempty"`
}

// AddBranch adds a branch to a project and returns the SHA of its head. It
// fires push webhooks, and starts a pipeline when the branch holds the CI
// definition file.
func (s *Server) AddBranch(projectID int64, seed BranchSeed) (string, error) {
	files, err := seedFiles(seed.Files)
	if err != nil {
		return "", err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	p, err := s.st.projectByID(projectID)
	if err != nil {
		return "", err
	}
	if ref := p.repo.resolve(firstNonEmpty(seed.Ref, p.defaultBranch)); ref != nil && len(files) == 0 {
		if err := s.seedRoom(append(s.pipelineNeeds(ref.files[s.cfg.ciFile]), recordNeed{"branch", 1})...); err != nil {
			return "", err
		}
	}
	c := s.internalCall(s.root)
	head, err := s.seedBranch(c, p, seed, files)
	if err != nil {
		return "", err
	}
	s.hooks.enqueue(c.via, c.events)
	return head.sha, nil
}

// seedBranch makes a branch at its ref, with its files committed on it.
// s.mu must be held.
func (s *Server) seedBranch(c *call, p *project, seed BranchSeed, files []fileChange) (*commit, error) {
	ref := firstNonEmpty(seed.Ref, p.defaultBranch)
	if len(files) == 0 {
		head, fail := c.branchFrom(p, seed.Name, ref)
		if fail != nil {
			return nil, answerError(fail)
		}
		return head, nil
	}
	if !validBranchName(seed.Name) {
		return nil, fmt.Errorf("sourcehostfake: invalid branch name %q", seed.Name)
	}
	if p.repo.branches[seed.Name] != nil {
		return nil, fmt.Errorf("sourcehostfake: branch %q exists", seed.Name)
	}
	if len(p.repo.branches) == 0 { // the first commit of an empty repository
		ref = ""
	}
	return s.pushFiles(c, p, seed.Name, ref, files, "Seed files")
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
	paths := slices.Sorted(maps.Keys(files))
	if message == "" {
		message = "Update " + strings.Join(paths, ", ")
	}
	// Hash the files before the state is locked.
	changes := make([]fileChange, 0, len(files))
	for _, path := range paths {
		clean := strings.Trim(path, "/")
		if clean == "" || slices.Contains(strings.Split(clean, "/"), "..") {
			return "", fmt.Errorf("sourcehostfake: invalid file path %q", path)
		}
		ch := fileChange{path: clean}
		if files[path] != nil {
			ch.blob = newBlob(files[path])
		}
		changes = append(changes, ch)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	p, err := s.st.projectByID(projectID)
	if err != nil {
		return "", err
	}
	c := s.internalCall(s.root)
	cm, err := s.pushFiles(c, p, branch, "", changes, message)
	if err != nil {
		return "", err
	}
	s.hooks.enqueue(c.via, c.events)
	return cm.sha, nil
}

// PushFile is PushFiles for one file.
func (s *Server) PushFile(projectID int64, branch, path, content, message string) (string, error) {
	return s.PushFiles(projectID, branch, map[string][]byte{path: []byte(content)}, message)
}

// pushFiles commits changes to branch as c's user (root), creating it from
// start, else from the default branch, or as the first commit of an empty
// repository, and queues the push's events on c. s.mu must be held.
func (s *Server) pushFiles(c *call, p *project, branch, start string, changes []fileChange, message string) (*commit, error) {
	if start == "" && p.repo.branches[branch] == nil && p.repo.branches[p.defaultBranch] != nil {
		start = p.defaultBranch
	}
	before := p.repo.branches[branch]
	head := before
	if head == nil {
		head = p.repo.resolve(start)
	}
	if err := s.seedRoom(s.pushesNeeds(head, changes)...); err != nil {
		return nil, err
	}
	cm, err := s.st.commitFiles(p, branch, start, changes, message, c.user.name, c.user.email)
	if err != nil {
		return nil, fmt.Errorf("sourcehostfake: %w", err)
	}
	c.queuePush(p, branch, before, cm)
	return cm, nil
}

// compareJSON is a comparison of two refs (GET .../repository/compare).
type compareJSON struct {
	Commit         *commitJSON   `json:"commit"`
	Commits        []*commitJSON `json:"commits"`
	Diffs          []diffJSON    `json:"diffs"`
	CompareTimeout bool          `json:"compare_timeout"`
	CompareSameRef bool          `json:"compare_same_ref"`
	WebURL         string        `json:"web_url"`
}

// maxCompareCommits bounds the commits a comparison lists, as the real
// service's compare lists at most its safe limit of commits.
const maxCompareCommits = 1_000

func (c *call) compare() fakekit.Answer {
	pr, fail := c.repoProject()
	if fail != nil {
		return *fail
	}
	from := c.p.required("from")
	to := c.p.required("to")
	straight, _ := c.p.boolean("straight")
	if msg := c.p.problem(); msg != "" {
		return badRequest(msg)
	}
	head, base := pr.repo.resolve(to), pr.repo.resolve(from)
	if head == nil || base == nil {
		return notFound("Ref")
	}
	// from...to (the default) compares to with where it left from; from..to
	// (straight) compares the two snapshots themselves. Either way the
	// commits are those of to that from lacks, oldest first.
	start := base
	if !straight {
		start = mergeBase(base, head)
	}
	commits := history(head, base)
	slices.Reverse(commits)
	if len(commits) > maxCompareCommits {
		commits = commits[len(commits)-maxCompareCommits:]
	}
	out := compareJSON{Commits: renderAll(commits, func(cm *commit) *commitJSON { return c.renderCommit(pr, cm) }),
		CompareSameRef: from == to, WebURL: c.base + "/" + pr.fullPath() + "/-/compare/" + from + "..." + to}
	if straight {
		out.WebURL = c.base + "/" + pr.fullPath() + "/-/compare/" + from + ".." + to
	}
	if n := len(out.Commits); n > 0 {
		out.Commit = out.Commits[n-1]
	}
	out.Diffs, _ = diffTrees(start, head)
	return ok(out)
}

// getRawBlob answers a blob's bytes by its id: one of a branch's or tag's
// files first, else of any commit's.
func (c *call) getRawBlob() fakekit.Answer {
	pr, fail := c.repoProject()
	if fail != nil {
		return *fail
	}
	sha := c.r.PathValue("sha")
	find := func(cm *commit) *blob {
		for _, b := range cm.files {
			if b.sha == sha {
				return b
			}
		}
		return nil
	}
	heads := make([]*commit, 0, len(pr.repo.branches)+len(pr.repo.tags))
	for _, cm := range pr.repo.branches {
		heads = append(heads, cm)
	}
	for _, t := range pr.repo.tags {
		heads = append(heads, t.commit)
	}
	for _, cm := range heads {
		if b := find(cm); b != nil {
			return fakekit.Answer{Status: http.StatusOK, Raw: b.data, ContentType: "text/plain; charset=utf-8"}
		}
	}
	for _, cm := range pr.repo.commits {
		if b := find(cm); b != nil {
			return fakekit.Answer{Status: http.StatusOK, Raw: b.data, ContentType: "text/plain; charset=utf-8"}
		}
	}
	return notFound("Blob")
}

// maxBlameCommits bounds the commits a blame walks back through; the
// lines still unexplained there are the last commit's.
const maxBlameCommits = 1_000

// blameJSON is a run of a file's lines last changed by one commit.
type blameJSON struct {
	Commit *commitJSON `json:"commit"`
	Lines  []string    `json:"lines"`
}

func (c *call) blame() fakekit.Answer {
	pr, fail := c.repoProject()
	if fail != nil {
		return *fail
	}
	ref := c.p.required("ref")
	if msg := c.p.problem(); msg != "" {
		return badRequest(msg)
	}
	head, file, b, fail := c.fileAt(pr, ref)
	if fail != nil {
		return *fail
	}
	lines := splitLines(b.data)
	owners := blameLines(head, file, len(lines))
	out := []blameJSON{}
	for i, l := range lines {
		l = strings.TrimSuffix(l, "\n")
		if n := len(out); n > 0 && out[n-1].Commit.ID == owners[i].sha {
			out[n-1].Lines = append(out[n-1].Lines, l)
			continue
		}
		out = append(out, blameJSON{Commit: c.renderCommit(pr, owners[i]), Lines: []string{l}})
	}
	return ok(out)
}

// blameLines finds the commit that last changed each of the n lines of
// file at head: walking back through the commits that changed it, a line
// a commit added is that commit's, a line it kept is its parent's to
// explain.
func blameLines(head *commit, file string, n int) []*commit {
	owners := make([]*commit, n)
	at := make([]int, n) // the line of owners each line of the version at cur is
	for i := range at {
		at[i] = i
	}
	left := n
	tracked := head.files[file] // the version whose lines at maps
	df := newDiffer()
	for cur, steps := head, 0; left > 0; steps++ {
		c := lastCommitFor(cur, file)
		var parent *commit
		switch {
		case c == nil || c.files[file] == nil || c.files[file].sha != tracked.sha || steps == maxBlameCommits:
			c = cur // a history the walk cannot follow, or too long: what is left is cur's
		case len(c.parents) > 0 && c.parents[0].files[file] != nil:
			parent = c.parents[0]
		}
		if parent == nil { // the file began here: what is left is c's
			for _, k := range at {
				if k >= 0 && owners[k] == nil {
					owners[k] = c
				}
			}
			break
		}
		before := splitLines(parent.files[file].data)
		next := make([]int, len(before))
		ai, bi := 0, 0
		for _, e := range df.lineEdits(before, splitLines(c.files[file].data)) {
			switch e.op {
			case '+':
				if k := at[bi]; k >= 0 {
					owners[k] = c
					left--
				}
				bi++
			case '-':
				next[ai] = -1
				ai++
			default:
				next[ai] = at[bi]
				ai, bi = ai+1, bi+1
			}
		}
		at, cur, tracked = next, parent, parent.files[file]
	}
	return owners
}
