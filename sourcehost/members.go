package sourcehost

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"time"
)

// AccessLevel is what a member may do in a project or group.
type AccessLevel int

// The access levels, as the API numbers them.
const (
	NoAccess         AccessLevel = 0
	MinimalAccess    AccessLevel = 5
	GuestAccess      AccessLevel = 10 // sees the project; a private project's code stays hidden
	ReporterAccess   AccessLevel = 20 // reads the code, manages issues
	DeveloperAccess  AccessLevel = 30 // pushes to unprotected branches, opens and merges merge requests
	MaintainerAccess AccessLevel = 40 // manages the project: hooks, members, protected branches
	OwnerAccess      AccessLevel = 50
)

// String names the level: "guest", "reporter", … or the number.
func (l AccessLevel) String() string {
	switch l {
	case NoAccess:
		return "no access"
	case MinimalAccess:
		return "minimal access"
	case GuestAccess:
		return "guest"
	case ReporterAccess:
		return "reporter"
	case DeveloperAccess:
		return "developer"
	case MaintainerAccess:
		return "maintainer"
	case OwnerAccess:
		return "owner"
	}
	return fmt.Sprintf("access level %d", int(l))
}

// ProjectMember is a user with an access level in a project.
type ProjectMember struct {
	User
	AccessLevel AccessLevel `json:"access_level"`
	CreatedAt   time.Time   `json:"created_at"`
	ExpiresAt   *Date       `json:"expires_at"` // nil: the membership does not expire
	// MembershipState is "active", or "awaiting" for an invitation not
	// accepted yet.
	MembershipState string `json:"membership_state"`
}

// ListProjectMembersOptions filters and pages a project's members.
type ListProjectMembersOptions struct {
	ListOptions
	Query   string  `url:"query,omitempty"`          // in username and name
	UserIDs []int64 `url:"user_ids,comma,omitempty"` // only these users
}

// ListProjectMembers returns one page of a project's direct members;
// ListAllProjectMembers adds those the project inherits from its group.
//
// GitLab API: [GET /projects/{id}/members]
//
// [GET /projects/{id}/members]: https://docs.gitlab.com/api/members/#list-all-members-of-a-group-or-project
func (c *Client) ListProjectMembers(ctx context.Context, pid ProjectRef, opts *ListProjectMembersOptions) (*Page[ProjectMember], error) {
	return listIn[ProjectMember](ctx, c, pid, "/members", opts)
}

// AllProjectMembers iterates a project's direct members a page at a time.
//
// GitLab API: [GET /projects/{id}/members]
//
// [GET /projects/{id}/members]: https://docs.gitlab.com/api/members/#list-all-members-of-a-group-or-project
func (c *Client) AllProjectMembers(ctx context.Context, pid ProjectRef, opts *ListProjectMembersOptions) iter.Seq2[*ProjectMember, error] {
	return allIn[ProjectMember](ctx, c, pid, "/members", opts)
}

// ListAllProjectMembers returns one page of everyone with access to a
// project, members of its group included, each with the highest level
// they have.
//
// GitLab API: [GET /projects/{id}/members/all]
//
// [GET /projects/{id}/members/all]: https://docs.gitlab.com/api/members/#list-all-members-of-a-group-or-project-including-inherited-and-invited-members
func (c *Client) ListAllProjectMembers(ctx context.Context, pid ProjectRef, opts *ListProjectMembersOptions) (*Page[ProjectMember], error) {
	return listIn[ProjectMember](ctx, c, pid, "/members/all", opts)
}

// AllProjectMembersInherited iterates what ListAllProjectMembers pages.
//
// GitLab API: [GET /projects/{id}/members/all]
//
// [GET /projects/{id}/members/all]: https://docs.gitlab.com/api/members/#list-all-members-of-a-group-or-project-including-inherited-and-invited-members
func (c *Client) AllProjectMembersInherited(ctx context.Context, pid ProjectRef, opts *ListProjectMembersOptions) iter.Seq2[*ProjectMember, error] {
	return allIn[ProjectMember](ctx, c, pid, "/members/all", opts)
}

// GetProjectMember returns a direct member of a project by user id.
//
// GitLab API: [GET /projects/{id}/members/{user_id}]
//
// [GET /projects/{id}/members/{user_id}]: https://docs.gitlab.com/api/members/#get-a-member-of-a-group-or-project
func (c *Client) GetProjectMember(ctx context.Context, pid ProjectRef, userID int64) (*ProjectMember, error) {
	path, err := projectPath(pid, fmt.Sprintf("/members/%d", userID))
	if err != nil {
		return nil, err
	}
	return do[ProjectMember](ctx, c, http.MethodGet, path, nil, nil)
}

// GetInheritedProjectMember returns a user's membership of a project by
// user id, the project's group's members included, with the highest level
// the user has there (the member ListAllProjectMembers lists).
//
// GitLab API: [GET /projects/{id}/members/all/{user_id}]
//
// [GET /projects/{id}/members/all/{user_id}]: https://docs.gitlab.com/api/members/#get-a-member-of-a-group-or-project-including-inherited-and-invited-members
func (c *Client) GetInheritedProjectMember(ctx context.Context, pid ProjectRef, userID int64) (*ProjectMember, error) {
	path, err := projectPath(pid, fmt.Sprintf("/members/all/%d", userID))
	if err != nil {
		return nil, err
	}
	return do[ProjectMember](ctx, c, http.MethodGet, path, nil, nil)
}

// AddProjectMemberRequest is the body of POST /projects/:id/members.
type AddProjectMemberRequest struct {
	UserID      int64       `json:"user_id"`
	AccessLevel AccessLevel `json:"access_level"`
	ExpiresAt   *Date       `json:"expires_at,omitempty"`
}

// AddProjectMember gives a user an access level in a project. It takes a
// maintainer; a user who is a member already is refused with 409
// (ErrConflict).
//
// GitLab API: [POST /projects/{id}/members]
//
// [POST /projects/{id}/members]: https://docs.gitlab.com/api/members/#add-a-member-to-a-group-or-project
func (c *Client) AddProjectMember(ctx context.Context, pid ProjectRef, req *AddProjectMemberRequest) (*ProjectMember, error) {
	if req == nil || req.UserID <= 0 || req.AccessLevel <= 0 {
		return nil, errors.New("sourcehost: AddProjectMember needs a user id and an access level")
	}
	path, err := projectPath(pid, "/members")
	if err != nil {
		return nil, err
	}
	return do[ProjectMember](ctx, c, http.MethodPost, path, nil, req)
}

// EditProjectMemberRequest is the body of PUT /projects/:id/members/:user_id.
type EditProjectMemberRequest struct {
	AccessLevel AccessLevel `json:"access_level"`
	ExpiresAt   *Date       `json:"expires_at,omitempty"`
}

// EditProjectMember changes a member's access level.
//
// GitLab API: [PUT /projects/{id}/members/{user_id}]
//
// [PUT /projects/{id}/members/{user_id}]: https://docs.gitlab.com/api/members/#edit-a-member-of-a-group-or-project
func (c *Client) EditProjectMember(ctx context.Context, pid ProjectRef, userID int64, req *EditProjectMemberRequest) (*ProjectMember, error) {
	if req == nil || req.AccessLevel <= 0 {
		return nil, errors.New("sourcehost: EditProjectMember needs an access level")
	}
	path, err := projectPath(pid, fmt.Sprintf("/members/%d", userID))
	if err != nil {
		return nil, err
	}
	return do[ProjectMember](ctx, c, http.MethodPut, path, nil, req)
}

// RemoveProjectMember takes a user's membership of a project away.
//
// GitLab API: [DELETE /projects/{id}/members/{user_id}]
//
// [DELETE /projects/{id}/members/{user_id}]: https://docs.gitlab.com/api/members/#remove-a-member-from-a-group-or-project
func (c *Client) RemoveProjectMember(ctx context.Context, pid ProjectRef, userID int64) error {
	path, err := projectPath(pid, fmt.Sprintf("/members/%d", userID))
	if err != nil {
		return err
	}
	_, err = c.call(ctx, http.MethodDelete, path, nil, nil, nil)
	return err
}
