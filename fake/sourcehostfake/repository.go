package sourcehostfake

import (
	"cmp"
	"crypto/sha1" //nolint:gosec // git's object ids
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"net/http"
	"path"
	"slices"
	"strings"
)

func (c *call) repoProject() (*project, *answer) {
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

func (c *call) getFile() answer {
	pr, fail := c.repoProject()
	if fail != nil {
		return *fail
	}
	ref := c.p.required("ref")
	if msg := c.p.problem(); msg != "" {
		return badRequest(msg)
	}
	head := pr.repo.resolve(ref)
	if head == nil {
		return notFound("Commit")
	}
	file := strings.TrimPrefix(c.r.PathValue("file_path"), "/")
	b := head.files[file]
	if b == nil {
		return notFound("File")
	}
	sum := sha256.Sum256(b.data)
	out := fileJSON{FileName: path.Base(file), FilePath: file, Size: len(b.data), Encoding: "base64",
		ContentSHA256: hex.EncodeToString(sum[:]), Ref: ref, BlobID: b.sha, CommitID: head.sha, Content: encodeContent(b.data)}
	if last := lastCommitFor(head, file); last != nil {
		out.LastCommitID = last.sha
	}
	return ok(out)
}

func (c *call) getRawFile() answer {
	pr, fail := c.repoProject()
	if fail != nil {
		return *fail
	}
	ref, ok := c.p.str("ref")
	if !ok || ref == "" {
		ref = pr.defaultBranch
	}
	head := pr.repo.resolve(ref)
	if head == nil {
		return notFound("Commit")
	}
	b := head.files[strings.TrimPrefix(c.r.PathValue("file_path"), "/")]
	if b == nil {
		return notFound("File")
	}
	return answer{status: http.StatusOK, raw: b.data, contentType: "text/plain; charset=utf-8"}
}

func (c *call) createFile() answer {
	pr, fail := c.project()
	if fail != nil {
		return *fail
	}
	if fail := c.atLeast(pr, Developer); fail != nil {
		return *fail
	}
	p := c.p
	branch := p.required("branch")
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
	data := []byte(content)
	if encoding == "base64" {
		var err error
		if data, err = base64.StdEncoding.DecodeString(content); err != nil {
			return badRequest("content is invalid")
		}
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
	cm, err := c.st.commitFiles(pr, branch, start, []fileChange{{path: file, data: data}}, msg, authorName, authorEmail)
	if err != nil {
		return message(http.StatusBadRequest, err.Error())
	}
	c.queuePush(pr, branch, before, cm)
	return created(map[string]string{"file_path": file, "branch": branch})
}

func (c *call) listTree() answer {
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
	page, fail := paginate(c, entries)
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

func (c *call) getCommit() answer {
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
	canPush := c.st.access(c.user, pr) >= Developer
	return branchJSON{Name: name, Commit: c.renderCommit(pr, head), Merged: merged, Protected: name == pr.defaultBranch,
		DevelopersCanPush: false, DevelopersCanMerge: false, CanPush: canPush, Default: name == pr.defaultBranch,
		WebURL: c.base + "/" + pr.fullPath() + "/-/tree/" + name}
}

func (c *call) listBranches() answer {
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

func (c *call) createBranch() answer {
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
	if !validBranchName(name) {
		return message(http.StatusBadRequest, "Branch name is invalid")
	}
	if pr.repo.branches[name] != nil {
		return message(http.StatusBadRequest, "Branch already exists")
	}
	head := pr.repo.resolve(ref)
	if head == nil {
		return message(http.StatusBadRequest, "Invalid reference name: "+ref)
	}
	pr.repo.branches[name] = head
	pr.lastActivity = c.st.clock.Now()
	c.queuePush(pr, name, nil, head)
	return created(c.renderBranch(pr, name, head))
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
