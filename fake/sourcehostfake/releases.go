package sourcehostfake

import (
	"net/http"
	"slices"
	"time"
	"unicode/utf8"

	"github.com/apitwin/apitwin/internal/fakekit"
)

type releaseSourceJSON struct {
	Format string `json:"format"`
	URL    string `json:"url"`
}

type releaseAssetsJSON struct {
	Count   int                 `json:"count"`
	Sources []releaseSourceJSON `json:"sources"`
	Links   []struct{}          `json:"links"`
}

type releaseLinksJSON struct {
	Self    string `json:"self"`
	EditURL string `json:"edit_url"`
}

type releaseJSON struct {
	TagName         string            `json:"tag_name"`
	Name            string            `json:"name"`
	Description     string            `json:"description"`
	DescriptionHTML string            `json:"description_html"`
	CreatedAt       stamp             `json:"created_at"`
	ReleasedAt      stamp             `json:"released_at"`
	UpcomingRelease bool              `json:"upcoming_release"`
	Author          written           `json:"author"`
	Commit          *commitJSON       `json:"commit"`
	Milestones      []written         `json:"milestones"`
	CommitPath      string            `json:"commit_path"`
	TagPath         string            `json:"tag_path"`
	Assets          releaseAssetsJSON `json:"assets"`
	Evidences       []struct{}        `json:"evidences"`
	Links           releaseLinksJSON  `json:"_links"`
}

func (c *call) renderRelease(pr *project, rel *release) releaseJSON {
	web := c.base + "/" + pr.fullPath()
	out := releaseJSON{TagName: rel.tagName, Name: rel.name, Description: rel.description,
		DescriptionHTML: "<p>" + htmlEscape(rel.description) + "</p>", CreatedAt: stamp(rel.createdAt),
		ReleasedAt: stamp(rel.releasedAt), UpcomingRelease: rel.releasedAt.After(c.st.clock.Now()),
		Author: c.userRef(rel.author), Milestones: make([]written, 0, len(rel.milestones)),
		CommitPath: "/" + pr.fullPath() + "/-/commit/" + rel.sha, TagPath: "/" + pr.fullPath() + "/-/tags/" + rel.tagName,
		Evidences: []struct{}{},
		Links:     releaseLinksJSON{Self: web + "/-/releases/" + rel.tagName, EditURL: web + "/-/releases/" + rel.tagName + "/edit"}}
	if cm := pr.repo.commits[rel.sha]; cm != nil {
		out.Commit = c.renderCommit(pr, cm)
	}
	for _, m := range rel.milestones {
		out.Milestones = append(out.Milestones, c.milestoneRef(m))
	}
	for _, f := range []string{"zip", "tar.gz", "tar.bz2", "tar"} {
		out.Assets.Sources = append(out.Assets.Sources, releaseSourceJSON{Format: f,
			URL: web + "/-/archive/" + rel.tagName + "/" + pr.path + "-" + rel.tagName + "." + f})
	}
	out.Assets.Count, out.Assets.Links = len(out.Assets.Sources), []struct{}{}
	return out
}

func (c *call) listReleases() fakekit.Answer {
	pr, fail := c.project()
	if fail != nil {
		return *fail
	}
	orderBy, desc := sortOrder(c.p, "released_at", "created_at")
	if msg := c.p.problem(); msg != "" {
		return badRequest(msg)
	}
	items := slices.Clone(pr.releases)
	slices.SortStableFunc(items, func(a, b *release) int {
		r := a.releasedAt.Compare(b.releasedAt)
		if orderBy == "created_at" {
			r = a.createdAt.Compare(b.createdAt)
		}
		if desc {
			return -r
		}
		return r
	})
	page, fail := paginate(c, items)
	if fail != nil {
		return *fail
	}
	return ok(renderAll(page, func(rel *release) releaseJSON { return c.renderRelease(pr, rel) }))
}

func (c *call) findRelease(pr *project) (*release, *fakekit.Answer) {
	rel := pr.releaseFor(c.r.PathValue("tag_name"))
	if rel == nil {
		return nil, errAnswer(message(http.StatusNotFound, "404 Not Found"))
	}
	return rel, nil
}

func (c *call) getRelease() fakekit.Answer {
	pr, fail := c.project()
	if fail != nil {
		return *fail
	}
	rel, fail := c.findRelease(pr)
	if fail != nil {
		return *fail
	}
	return ok(c.renderRelease(pr, rel))
}

// releaseFields reads name, description, released_at and milestones.
func (c *call) releaseFields(pr *project) (name string, hasName bool, description string, hasDesc bool, at *time.Time, ms []*milestone, hasMS bool) {
	name, hasName = c.p.str("name")
	description, hasDesc = c.p.str("description")
	if s, ok := c.p.str("released_at"); ok && s != "" {
		t, err := time.Parse(time.RFC3339, s)
		if err != nil {
			c.p.fail("released_at", "is invalid")
		} else {
			at = &t
		}
	}
	titles, hasMS := c.p.list("milestones")
	for _, title := range titles {
		i := slices.IndexFunc(pr.milestones, func(m *milestone) bool { return m.title == title })
		if i < 0 {
			c.p.fail("milestones", "is invalid: Milestone "+title+" does not exist")
			continue
		}
		ms = append(ms, pr.milestones[i])
	}
	return name, hasName, description, hasDesc, at, ms, hasMS
}

func (c *call) createRelease() fakekit.Answer {
	pr, fail := c.project()
	if fail != nil {
		return *fail
	}
	if fail := c.atLeast(pr, Developer); fail != nil {
		return *fail
	}
	tagName := c.p.required("tag_name")
	ref, _ := c.p.str("ref")
	tagMessage, _ := c.p.str("tag_message")
	name, hasName, description, _, at, ms, _ := c.releaseFields(pr)
	if msg := c.p.problem(); msg != "" {
		return badRequest(msg)
	}
	if len(description) > maxDescription && utf8.RuneCountInString(description) > maxDescription {
		return invalid(http.StatusBadRequest, map[string][]string{"description": {"is too long (maximum is 1048576 characters)"}})
	}
	if pr.releaseFor(tagName) != nil {
		return message(http.StatusConflict, "Release already exists")
	}
	t := pr.repo.tags[tagName]
	if t == nil {
		if ref == "" {
			return message(http.StatusUnprocessableEntity, "Ref is not specified")
		}
		var fail *fakekit.Answer
		if t, fail = c.addTag(pr, tagName, ref, tagMessage); fail != nil {
			return *fail
		}
	}
	now := c.st.clock.Now()
	rel := &release{id: c.st.next("release"), tagName: tagName, name: tagName, description: description, author: c.user, sha: t.commit.sha,
		milestones: ms, createdAt: now, releasedAt: now}
	if hasName && name != "" {
		rel.name = name
	}
	if at != nil {
		rel.releasedAt = *at
	}
	pr.releases = append(pr.releases, rel)
	c.queueReleaseEvent(pr, rel, "create")
	return created(c.renderRelease(pr, rel))
}

func (c *call) updateRelease() fakekit.Answer {
	pr, fail := c.project()
	if fail != nil {
		return *fail
	}
	if fail := c.atLeast(pr, Developer); fail != nil {
		return *fail
	}
	rel, fail := c.findRelease(pr)
	if fail != nil {
		return *fail
	}
	name, hasName, description, hasDesc, at, ms, hasMS := c.releaseFields(pr)
	if msg := c.p.problem(); msg != "" {
		return badRequest(msg)
	}
	if !hasName && !hasDesc && at == nil && !hasMS {
		return badRequest("name, description, released_at, milestones are missing, at least one parameter must be provided")
	}
	if hasName {
		rel.name = name
	}
	if hasDesc {
		rel.description = description
	}
	if at != nil {
		rel.releasedAt = *at
	}
	if hasMS {
		rel.milestones = ms
	}
	c.queueReleaseEvent(pr, rel, "update")
	return ok(c.renderRelease(pr, rel))
}

func (c *call) deleteRelease() fakekit.Answer {
	pr, fail := c.project()
	if fail != nil {
		return *fail
	}
	if fail := c.atLeast(pr, Maintainer); fail != nil {
		return *fail
	}
	rel, fail := c.findRelease(pr)
	if fail != nil {
		return *fail
	}
	pr.releases = slices.DeleteFunc(pr.releases, func(x *release) bool { return x == rel })
	c.s.removed("release", 1)
	c.queueReleaseEvent(pr, rel, "delete")
	// The real service answers a delete with the release as it was.
	return ok(c.renderRelease(pr, rel))
}
