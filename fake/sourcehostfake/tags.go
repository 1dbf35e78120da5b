package sourcehostfake

import (
	"cmp"
	"crypto/sha1" //nolint:gosec // git's object ids
	"encoding/hex"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/apitwin/apitwin/internal/fakekit"
)

type tagReleaseJSON struct {
	TagName     string `json:"tag_name"`
	Description string `json:"description"`
}

type tagJSON struct {
	Name      string          `json:"name"`
	Message   *string         `json:"message"`
	Target    string          `json:"target"`
	Commit    *commitJSON     `json:"commit"`
	Release   *tagReleaseJSON `json:"release"`
	Protected bool            `json:"protected"`
	CreatedAt *stamp          `json:"created_at"`
}

func (c *call) renderTag(pr *project, t *tag) tagJSON {
	out := tagJSON{Name: t.name, Target: t.sha, Commit: c.renderCommit(pr, t.commit)}
	if t.message != "" {
		m := t.message
		out.Message = &m
		out.CreatedAt = stampPtr(&t.createdAt)
	}
	if rel := pr.releaseFor(t.name); rel != nil {
		out.Release = &tagReleaseJSON{TagName: rel.tagName, Description: rel.description}
	}
	return out
}

// releaseFor is the release of a tag, or nil. s.mu must be held.
func (pr *project) releaseFor(tagName string) *release {
	for _, r := range pr.releases {
		if r.tagName == tagName {
			return r
		}
	}
	return nil
}

func (c *call) listTags() fakekit.Answer {
	pr, fail := c.repoProject()
	if fail != nil {
		return *fail
	}
	orderBy, desc := sortOrder(c.p, "updated", "name", "version")
	search, _ := c.p.str("search")
	if msg := c.p.problem(); msg != "" {
		return badRequest(msg)
	}
	items := make([]*tag, 0, len(pr.repo.tags))
	for _, t := range pr.repo.tags {
		if tagMatches(t.name, search) {
			items = append(items, t)
		}
	}
	slices.SortFunc(items, func(a, b *tag) int {
		var r int
		switch orderBy {
		case "updated":
			r = a.commit.at.Compare(b.commit.at)
		case "version":
			r = compareVersions(a.name, b.name)
		}
		r = cmp.Or(r, cmp.Compare(a.name, b.name))
		if desc {
			return -r
		}
		return r
	})
	page, fail := paginate(c, items)
	if fail != nil {
		return *fail
	}
	return ok(renderAll(page, func(t *tag) tagJSON { return c.renderTag(pr, t) }))
}

// tagMatches applies a tag search: "^v1" (a prefix), "rc$" (a suffix), or
// a substring.
func tagMatches(name, search string) bool {
	switch {
	case search == "":
		return true
	case strings.HasPrefix(search, "^"):
		return strings.HasPrefix(name, search[1:])
	case strings.HasSuffix(search, "$"):
		return strings.HasSuffix(name, search[:len(search)-1])
	}
	return strings.Contains(name, search)
}

// compareVersions orders "v1.10.0" after "v1.9.2": numbers by value, the
// rest as text.
func compareVersions(a, b string) int {
	split := func(s string) []string {
		return strings.FieldsFunc(strings.TrimPrefix(s, "v"), func(r rune) bool { return r == '.' || r == '-' })
	}
	pa, pb := split(a), split(b)
	for i := 0; i < len(pa) && i < len(pb); i++ {
		na, errA := strconv.ParseUint(pa[i], 10, 64)
		nb, errB := strconv.ParseUint(pb[i], 10, 64)
		var r int
		if errA == nil && errB == nil {
			r = cmp.Compare(na, nb)
		} else {
			r = cmp.Compare(pa[i], pb[i])
		}
		if r != 0 {
			return r
		}
	}
	return cmp.Compare(len(pa), len(pb))
}

func (c *call) findTag(pr *project) (*tag, *fakekit.Answer) {
	t := pr.repo.tags[c.r.PathValue("tag_name")]
	if t == nil {
		return nil, errAnswer(notFound("Tag"))
	}
	return t, nil
}

func (c *call) getTag() fakekit.Answer {
	pr, fail := c.repoProject()
	if fail != nil {
		return *fail
	}
	t, fail := c.findTag(pr)
	if fail != nil {
		return *fail
	}
	return ok(c.renderTag(pr, t))
}

func (c *call) createTag() fakekit.Answer {
	pr, fail := c.project()
	if fail != nil {
		return *fail
	}
	if fail := c.atLeast(pr, Developer); fail != nil {
		return *fail
	}
	name := c.p.required("tag_name")
	ref := c.p.required("ref")
	msg, _ := c.p.str("message")
	if problem := c.p.problem(); problem != "" {
		return badRequest(problem)
	}
	t, fail := c.addTag(pr, name, ref, msg)
	if fail != nil {
		return *fail
	}
	return created(c.renderTag(pr, t))
}

// addTag tags ref of pr as name (annotated when msg is not empty) and
// queues the tag push. s.mu must be held.
func (c *call) addTag(pr *project, name, ref, msg string) (*tag, *fakekit.Answer) {
	if !validBranchName(name) {
		return nil, errAnswer(message(http.StatusBadRequest, "Tag name invalid"))
	}
	if pr.repo.tags[name] != nil {
		return nil, errAnswer(message(http.StatusBadRequest, fmt.Sprintf("Tag %s already exists", name)))
	}
	head := pr.repo.resolve(ref)
	if head == nil {
		return nil, errAnswer(message(http.StatusBadRequest, fmt.Sprintf("Target %s is invalid", ref)))
	}
	t := &tag{name: name, commit: head, message: msg, sha: head.sha, createdAt: c.st.clock.Now()}
	if msg != "" {
		h := sha1.Sum([]byte("tag\x00" + name + "\x00" + msg + "\x00" + head.sha + "\x00" + t.createdAt.String())) //nolint:gosec // a fake tag object id
		t.sha = hex.EncodeToString(h[:])
	}
	pr.repo.tags[name] = t
	c.st.made("tag", 1)
	pr.lastActivity = t.createdAt
	c.queueTagPush(pr, name, nil, t)
	return t, nil
}

func (c *call) deleteTag() fakekit.Answer {
	pr, fail := c.project()
	if fail != nil {
		return *fail
	}
	if fail := c.atLeast(pr, Developer); fail != nil {
		return *fail
	}
	t, fail := c.findTag(pr)
	if fail != nil {
		return *fail
	}
	delete(pr.repo.tags, t.name)
	c.s.removed("tag", 1)
	// Its release goes with it, as on the real service.
	n := len(pr.releases)
	pr.releases = slices.DeleteFunc(pr.releases, func(r *release) bool { return r.tagName == t.name })
	c.s.removed("release", n-len(pr.releases))
	pr.lastActivity = c.st.clock.Now()
	c.queueTagPush(pr, t.name, t, nil)
	return fakekit.Answer{Status: http.StatusNoContent}
}
