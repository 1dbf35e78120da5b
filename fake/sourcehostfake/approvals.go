package sourcehostfake

import (
	"net/http"
	"slices"

	"github.com/apitwin/apitwin/internal/fakekit"
)

// approvalsJSON is a merge request's approval state, as the real service's
// MergeRequestApprovals entity shows it (the free edition's fields, and
// the merge request's own that clients read with them): one approval is
// enough, none is required.
type approvalsJSON struct {
	ID                int64          `json:"id"`
	IID               int64          `json:"iid"`
	ProjectID         int64          `json:"project_id"`
	Title             string         `json:"title"`
	Description       string         `json:"description"`
	State             string         `json:"state"`
	CreatedAt         stamp          `json:"created_at"`
	UpdatedAt         stamp          `json:"updated_at"`
	MergeStatus       string         `json:"merge_status"`
	Approved          bool           `json:"approved"`
	ApprovalsRequired int            `json:"approvals_required"`
	ApprovalsLeft     int            `json:"approvals_left"`
	ApprovedBy        []approvedJSON `json:"approved_by"`
	UserHasApproved   bool           `json:"user_has_approved"`
	UserCanApprove    bool           `json:"user_can_approve"`
}

type approvedJSON struct {
	User       written `json:"user"`
	ApprovedAt stamp   `json:"approved_at"`
}

// approvedBy reports whether u approved mr.
func (mr *mergeRequest) approvedBy(u *user) bool {
	return u != nil && slices.ContainsFunc(mr.approvals, func(a approval) bool { return a.user == u })
}

// mayApprove is the real service's approve_merge_request ability in its
// free edition: developers and above, the author too.
func (c *call) mayApprove(pr *project) bool {
	return c.user != nil && c.st.access(c.user, pr) >= Developer
}

func (c *call) approvalsView(pr *project, mr *mergeRequest) approvalsJSON {
	v := approvalsJSON{ID: mr.id, IID: mr.iid, ProjectID: pr.id, Title: mr.title, Description: mr.description, State: mr.state,
		CreatedAt: stamp(mr.createdAt), UpdatedAt: stamp(mr.updatedAt), MergeStatus: "can_be_merged",
		Approved: len(mr.approvals) > 0, ApprovedBy: []approvedJSON{}, UserHasApproved: mr.approvedBy(c.user)}
	v.UserCanApprove = !v.UserHasApproved && c.mayApprove(pr)
	for _, a := range mr.approvals {
		v.ApprovedBy = append(v.ApprovedBy, approvedJSON{User: c.userRef(a.user), ApprovedAt: stamp(a.at)})
	}
	return v
}

// approvalMR finds the route's merge request for approving: the caller
// must be allowed to (403 otherwise, as the real service authorizes it).
func (c *call) approvalMR() (*project, *mergeRequest, *fakekit.Answer) {
	pr, fail := c.project()
	if fail != nil {
		return nil, nil, fail
	}
	mr, fail := c.findMR(pr)
	if fail != nil {
		return nil, nil, fail
	}
	if !c.mayApprove(pr) {
		return nil, nil, errAnswer(forbidden())
	}
	return pr, mr, nil
}

func (c *call) getApprovals() fakekit.Answer {
	pr, fail := c.project()
	if fail != nil {
		return *fail
	}
	mr, fail := c.findMR(pr)
	if fail != nil {
		return *fail
	}
	return ok(c.approvalsView(pr, mr))
}

func (c *call) approveMergeRequest() fakekit.Answer {
	sha, _ := c.p.str("sha")
	if msg := c.p.problem(); msg != "" {
		return badRequest(msg)
	}
	pr, mr, fail := c.approvalMR()
	if fail != nil {
		return *fail
	}
	if head := pr.repo.branches[mr.sourceBranch]; sha != "" && (head == nil || head.sha != sha) {
		current := ""
		if head != nil {
			current = head.sha
		}
		return message(http.StatusConflict, "SHA does not match HEAD of source branch: "+current)
	}
	if mr.approvedBy(c.user) {
		return fakekit.Answer{Status: http.StatusNotModified}
	}
	mr.approvals = append(mr.approvals, approval{user: c.user, at: c.st.clock.Now()})
	c.st.made("approval", 1)
	c.queueMREvent(mr, "approved")
	return created(c.approvalsView(pr, mr))
}

func (c *call) unapproveMergeRequest() fakekit.Answer {
	pr, mr, fail := c.approvalMR()
	if fail != nil {
		return *fail
	}
	if !mr.approvedBy(c.user) {
		return fakekit.Answer{Status: http.StatusNotModified}
	}
	mr.approvals = slices.DeleteFunc(mr.approvals, func(a approval) bool { return a.user == c.user })
	c.s.removed("approval", 1)
	c.queueMREvent(mr, "unapproved")
	return created(c.approvalsView(pr, mr))
}
