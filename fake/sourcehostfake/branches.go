package sourcehostfake

import (
	"fmt"
	"net/http"
	"path"
	"slices"

	"github.com/apitwin/apitwin/internal/fakekit"
)

// protection is the rule protecting branch, or nil: an exact name wins
// over a wildcard. s.mu must be held.
func (pr *project) protection(branch string) *protectedBranch {
	var wild *protectedBranch
	for _, pb := range pr.protected {
		if pb.name == branch {
			return pb
		}
		if matched, _ := path.Match(pb.name, branch); matched && wild == nil {
			wild = pb
		}
	}
	return wild
}

// ruleAllows reports whether a protected branch's rule level (push or
// merge) lets a caller of access level have through. "No one" (0) lets
// no one through, administrators neither: the real service checks it
// before it lets an administrator through.
func ruleAllows(rule, have int) bool { return rule != NoAccess && have >= rule }

// mayPush checks that the caller may push to branch of pr: a developer,
// and for a protected branch the level its rule asks. s.mu must be held.
func (c *call) mayPush(pr *project, branch string) *fakekit.Answer {
	if fail := c.atLeast(pr, Developer); fail != nil {
		return fail
	}
	if pb := pr.protection(branch); pb != nil && !ruleAllows(pb.push, c.st.access(c.user, pr)) {
		return errAnswer(message(http.StatusForbidden, "403 Forbidden - You are not allowed to push into this branch"))
	}
	return nil
}

// mayMerge checks that the caller may merge into branch of pr. s.mu must
// be held.
func (c *call) mayMerge(pr *project, branch string) *fakekit.Answer {
	if fail := c.atLeast(pr, Developer); fail != nil {
		return fail
	}
	if pb := pr.protection(branch); pb != nil && !ruleAllows(pb.merge, c.st.access(c.user, pr)) {
		return errAnswer(forbidden())
	}
	return nil
}

func (c *call) findBranch(pr *project) (string, *commit, *fakekit.Answer) {
	name := c.r.PathValue("branch")
	head := pr.repo.branches[name]
	if head == nil {
		return "", nil, errAnswer(notFound("Branch"))
	}
	return name, head, nil
}

func (c *call) getBranch() fakekit.Answer {
	pr, fail := c.repoProject()
	if fail != nil {
		return *fail
	}
	name, head, fail := c.findBranch(pr)
	if fail != nil {
		return *fail
	}
	return ok(c.renderBranch(pr, name, head))
}

func (c *call) deleteBranch() fakekit.Answer {
	pr, fail := c.project()
	if fail != nil {
		return *fail
	}
	if fail := c.atLeast(pr, Developer); fail != nil {
		return *fail
	}
	name, _, fail := c.findBranch(pr)
	if fail != nil {
		return *fail
	}
	switch {
	case name == pr.defaultBranch:
		return message(http.StatusMethodNotAllowed, "Cannot remove HEAD branch")
	case pr.protection(name) != nil:
		return message(http.StatusMethodNotAllowed, "Protected branch cant be removed")
	}
	delete(pr.repo.branches, name)
	c.s.removed("branch", 1)
	pr.lastActivity = c.st.clock.Now()
	return fakekit.Answer{Status: http.StatusNoContent}
}

// accessLevelJSON is one level of a protected branch's rule.
type accessLevelJSON struct {
	ID                     int64  `json:"id"`
	AccessLevel            int    `json:"access_level"`
	AccessLevelDescription string `json:"access_level_description"`
	UserID                 *int64 `json:"user_id"`
	GroupID                *int64 `json:"group_id"`
}

type protectedBranchJSON struct {
	ID                        int64             `json:"id"`
	Name                      string            `json:"name"`
	PushAccessLevels          []accessLevelJSON `json:"push_access_levels"`
	MergeAccessLevels         []accessLevelJSON `json:"merge_access_levels"`
	AllowForcePush            bool              `json:"allow_force_push"`
	CodeOwnerApprovalRequired bool              `json:"code_owner_approval_required"`
}

func accessDescription(level int) string {
	switch level {
	case NoAccess:
		return "No one"
	case Developer:
		return "Developers + Maintainers"
	case Maintainer:
		return "Maintainers"
	}
	return "Admins"
}

func renderProtected(pb *protectedBranch) protectedBranchJSON {
	return protectedBranchJSON{ID: pb.id, Name: pb.name, AllowForcePush: pb.allowForcePush,
		PushAccessLevels:  []accessLevelJSON{{ID: pb.id*2 - 1, AccessLevel: pb.push, AccessLevelDescription: accessDescription(pb.push)}},
		MergeAccessLevels: []accessLevelJSON{{ID: pb.id * 2, AccessLevel: pb.merge, AccessLevelDescription: accessDescription(pb.merge)}}}
}

// protectedProject is the {id} project, for a maintainer.
func (c *call) protectedProject() (*project, *fakekit.Answer) {
	pr, fail := c.project()
	if fail != nil {
		return nil, fail
	}
	return pr, c.atLeast(pr, Maintainer)
}

func (c *call) listProtectedBranches() fakekit.Answer {
	pr, fail := c.protectedProject()
	if fail != nil {
		return *fail
	}
	search, _ := c.p.str("search")
	if msg := c.p.problem(); msg != "" {
		return badRequest(msg)
	}
	items := keep(pr.protected, func(pb *protectedBranch) bool { return search == "" || containsFold(pb.name, search) })
	page, fail := paginate(c, items)
	if fail != nil {
		return *fail
	}
	return ok(renderAll(page, renderProtected))
}

func (c *call) findProtected(pr *project) (*protectedBranch, *fakekit.Answer) {
	name := c.r.PathValue("name")
	i := slices.IndexFunc(pr.protected, func(pb *protectedBranch) bool { return pb.name == name })
	if i < 0 {
		return nil, errAnswer(message(http.StatusNotFound, "404 Not found"))
	}
	return pr.protected[i], nil
}

func (c *call) getProtectedBranch() fakekit.Answer {
	pr, fail := c.protectedProject()
	if fail != nil {
		return *fail
	}
	pb, fail := c.findProtected(pr)
	if fail != nil {
		return *fail
	}
	return ok(renderProtected(pb))
}

var protectLevels = []int64{NoAccess, Developer, Maintainer}

func (c *call) protectBranch() fakekit.Answer {
	pr, fail := c.protectedProject()
	if fail != nil {
		return *fail
	}
	name := c.p.required("name")
	level := func(param string) int {
		v, ok := c.p.int(param)
		if !ok {
			return Maintainer
		}
		if !slices.Contains(protectLevels, v) {
			c.p.fail(param, "does not have a valid value")
		}
		return int(v)
	}
	push, merge := level("push_access_level"), level("merge_access_level")
	force, _ := c.p.boolean("allow_force_push")
	if msg := c.p.problem(); msg != "" {
		return badRequest(msg)
	}
	if slices.ContainsFunc(pr.protected, func(pb *protectedBranch) bool { return pb.name == name }) {
		return message(http.StatusConflict, fmt.Sprintf("Protected branch '%s' already exists", name))
	}
	pb := &protectedBranch{id: c.st.next("protected_branch"), name: name, push: push, merge: merge, allowForcePush: force}
	pr.protected = append(pr.protected, pb)
	return created(renderProtected(pb))
}

func (c *call) unprotectBranch() fakekit.Answer {
	pr, fail := c.protectedProject()
	if fail != nil {
		return *fail
	}
	pb, fail := c.findProtected(pr)
	if fail != nil {
		return *fail
	}
	pr.protected = slices.DeleteFunc(pr.protected, func(x *protectedBranch) bool { return x == pb })
	c.s.removed("protected_branch", 1)
	return fakekit.Answer{Status: http.StatusNoContent}
}
