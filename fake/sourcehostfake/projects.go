package sourcehostfake

import (
	"cmp"
	"net/http"
	"slices"
	"strings"
)

func (c *call) listProjects() answer {
	p := c.p
	visibility, _ := p.oneOf("visibility", "public", "internal", "private")
	owned, _ := p.boolean("owned")
	starred, _ := p.boolean("starred")
	membership, _ := p.boolean("membership")
	search, _ := p.str("search")
	stats, _ := p.boolean("statistics")
	orderBy, desc := sortOrder(p, "created_at", "id", "name", "path", "updated_at", "last_activity_at")
	if msg := p.problem(); msg != "" {
		return badRequest(msg)
	}
	if (owned || starred || membership) && c.user == nil {
		return message(http.StatusUnauthorized, "401 Unauthorized")
	}
	items := keep(c.st.projects, func(pr *project) bool {
		switch {
		case !c.st.canSee(c.user, pr),
			visibility != "" && pr.visibility != visibility,
			owned && !(pr.ns.kind == "user" && pr.ns.owner == c.user),
			starred && !c.user.starred[pr.id],
			membership && c.st.access(c.user, pr) < Guest,
			search != "" && !containsFold(pr.name, search) && !containsFold(pr.path, search) && !containsFold(pr.fullPath(), search):
			return false
		}
		return true
	})
	slices.SortStableFunc(items, func(a, b *project) int {
		var r int
		switch orderBy {
		case "name":
			r = cmp.Compare(strings.ToLower(a.name), strings.ToLower(b.name))
		case "path":
			r = cmp.Compare(a.fullPath(), b.fullPath())
		case "updated_at", "last_activity_at":
			r = a.lastActivity.Compare(b.lastActivity)
		case "created_at":
			r = a.createdAt.Compare(b.createdAt)
		}
		return ordered(r, a.id, b.id, desc)
	})
	page, fail := paginate(c, items)
	if fail != nil {
		return *fail
	}
	return ok(renderAll(page, func(pr *project) *projectJSON {
		return c.renderProject(pr, stats && c.st.access(c.user, pr) >= Reporter)
	}))
}

func (c *call) getProject() answer {
	pr, fail := c.project()
	if fail != nil {
		return *fail
	}
	stats, _ := c.p.boolean("statistics")
	if msg := c.p.problem(); msg != "" {
		return badRequest(msg)
	}
	return ok(c.renderProject(pr, stats && c.st.access(c.user, pr) >= Reporter))
}

func (c *call) createProject() answer {
	p := c.p
	name, hasName := p.str("name")
	path, hasPath := p.str("path")
	description, _ := p.str("description")
	visibility, hasVis := p.oneOf("visibility", "public", "internal", "private")
	defaultBranch, _ := p.str("default_branch")
	nsID, hasNS := p.int("namespace_id")
	topics, _ := p.list("topics")
	readme, _ := p.boolean("initialize_with_readme")
	if !hasName && !hasPath || strings.TrimSpace(name) == "" && strings.TrimSpace(path) == "" {
		p.errs = append([]string{"name, path are missing, at least one parameter must be provided"}, p.errs...)
	}
	if msg := p.problem(); msg != "" {
		return badRequest(msg)
	}
	if !hasVis {
		visibility = "private"
	}
	if defaultBranch == "" {
		defaultBranch = "main"
	}
	name, path = strings.TrimSpace(name), strings.TrimSpace(path)
	if name == "" {
		name = path
	}
	if path == "" {
		path = pathFromName(name)
	}

	ns := c.user.ns
	if hasNS {
		ns = c.st.nss[nsID]
		if ns == nil {
			return notFound("Namespace")
		}
		if ns.kind == "user" && ns.owner != c.user && !c.user.admin || ns.kind == "group" && ns.members[c.user.id] < Maintainer && !c.user.admin {
			return invalid(http.StatusBadRequest, map[string][]string{"namespace": []string{"is not valid"}})
		}
	}
	fields := map[string][]string{}
	if !projectNameRE.MatchString(name) {
		fields["name"] = append(fields["name"], "can contain only letters, digits, emojis, '_', '.', '+', dashes, or spaces. It must start with a letter, digit, emoji, or '_'.")
	}
	if !projectPathRE.MatchString(path) || strings.HasSuffix(path, ".git") || strings.HasSuffix(path, ".atom") {
		fields["path"] = append(fields["path"], "can contain only letters, digits, '_', '-' and '.'. Cannot start with '-', end in '.git' or end in '.atom'")
	}
	for _, other := range c.st.projects {
		if other.ns != ns {
			continue
		}
		if strings.EqualFold(other.name, name) {
			fields["name"] = append(fields["name"], "has already been taken")
		}
		if strings.EqualFold(other.path, path) {
			fields["path"] = append(fields["path"], "has already been taken")
		}
	}
	if len(fields) > 0 {
		return invalid(http.StatusBadRequest, fields)
	}
	pr := c.st.addProject(ns, c.user, name, path, description, visibility, defaultBranch)
	pr.topics = topics
	if readme {
		content := "# " + name + "\n\n" + description + "\n"
		cm, err := c.st.commitFiles(pr, defaultBranch, "", []fileChange{{path: "README.md", data: []byte(content)}}, "Initial commit", c.user.name, c.user.email)
		if err == nil {
			c.queuePush(pr, defaultBranch, nil, cm)
		}
	}
	return created(c.renderProject(pr, false))
}

func (c *call) starProject() answer {
	pr, fail := c.project()
	if fail != nil {
		return *fail
	}
	if c.user.starred[pr.id] {
		return answer{status: http.StatusNotModified}
	}
	c.user.starred[pr.id] = true
	pr.starCount++
	return created(c.renderProject(pr, false))
}
