package sourcehost

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Group is a group: a namespace that holds projects and subgroups, whose
// members have access to all of them.
type Group struct {
	ID          int64      `json:"id"`
	Name        string     `json:"name"`
	Path        string     `json:"path"`
	FullName    string     `json:"full_name"` // "Group / Sub"
	FullPath    string     `json:"full_path"` // "group/sub"
	Description string     `json:"description"`
	Visibility  Visibility `json:"visibility"`
	WebURL      string     `json:"web_url"`
	CreatedAt   time.Time  `json:"created_at"`
	// ParentID is the group this one is a subgroup of; 0 for a
	// top-level group.
	ParentID int64 `json:"parent_id"`
	// MarkedForDeletionOn is the day the group was marked for deletion,
	// where delayed deletion is on (its name and path then end in
	// "-deletion_scheduled-<id>"); nil when it is not marked.
	MarkedForDeletionOn *Date `json:"marked_for_deletion_on"`
	// Projects are the projects directly in the group that the caller
	// sees (at most 100), in the answers of GetGroup, CreateGroup and
	// UpdateGroup only; ListGroupProjects pages them all.
	Projects []*Project `json:"projects,omitempty"`
}

// GroupRef names a group: by numeric id ([GroupID]) or by its full path
// ([GroupPath]).
type GroupRef interface {
	groupRef() (string, error)
}

// GroupID names a group by its numeric id.
type GroupID int64

// GroupPath names a group by its full path, "group/subgroup".
type GroupPath string

func (id GroupID) groupRef() (string, error) {
	if id <= 0 {
		return "", fmt.Errorf("invalid group id %d", id)
	}
	return strconv.FormatInt(int64(id), 10), nil
}

func (p GroupPath) groupRef() (string, error) {
	s := strings.Trim(string(p), "/")
	if s == "" {
		return "", errors.New("empty group path")
	}
	return url.PathEscape(s), nil
}

// groupPath builds "/groups/<ref><suffix>".
func groupPath(gid GroupRef, suffix string) (string, error) {
	if gid == nil {
		return "", errors.New("sourcehost: nil group")
	}
	ref, err := gid.groupRef()
	if err != nil {
		return "", fmt.Errorf("sourcehost: %w", err)
	}
	return "/groups/" + ref + suffix, nil
}

// ListGroupsOptions filters, orders and pages groups (and subgroups).
type ListGroupsOptions struct {
	ListOptions
	Search string `url:"search,omitempty"` // in name and path
	// AllAvailable lists every group the caller sees; without it, a user
	// who is no administrator sees only the groups they are a member of.
	AllAvailable   *bool       `url:"all_available,omitempty"`
	Owned          *bool       `url:"owned,omitempty"`
	MinAccessLevel AccessLevel `url:"min_access_level,omitempty"`
	TopLevelOnly   *bool       `url:"top_level_only,omitempty"`
	Visibility     Visibility  `url:"visibility,omitempty"`
	OrderBy        string      `url:"order_by,omitempty"` // name (default), path or id
	Sort           string      `url:"sort,omitempty"`     // asc (default) or desc
}

// ListGroups returns one page of the groups the caller sees.
//
// GitLab API: [GET /groups]
//
// [GET /groups]: https://docs.gitlab.com/api/groups/#list-groups
func (c *Client) ListGroups(ctx context.Context, opts *ListGroupsOptions) (*Page[Group], error) {
	return list[Group](ctx, c, "/groups", opts)
}

// AllGroups iterates the groups the caller sees a page at a time.
//
// GitLab API: [GET /groups]
//
// [GET /groups]: https://docs.gitlab.com/api/groups/#list-groups
func (c *Client) AllGroups(ctx context.Context, opts *ListGroupsOptions) iter.Seq2[*Group, error] {
	return all[Group](ctx, c, "/groups", opts)
}

// GetGroup returns a group, with the projects directly in it.
//
// GitLab API: [GET /groups/{id}]
//
// [GET /groups/{id}]: https://docs.gitlab.com/api/groups/#get-a-single-group
func (c *Client) GetGroup(ctx context.Context, gid GroupRef) (*Group, error) {
	path, err := groupPath(gid, "")
	if err != nil {
		return nil, err
	}
	return do[Group](ctx, c, http.MethodGet, path, nil, nil)
}

// CreateGroupRequest is the body of POST /groups.
type CreateGroupRequest struct {
	Name string `json:"name"`
	Path string `json:"path"`
	// ParentID makes a subgroup of that group (the caller must be a
	// maintainer of it); 0 makes a top-level group.
	ParentID    int64      `json:"parent_id,omitempty"`
	Description string     `json:"description,omitempty"`
	Visibility  Visibility `json:"visibility,omitempty"` // default private
}

// CreateGroup makes a group, whose owner the caller becomes.
//
// GitLab API: [POST /groups]
//
// [POST /groups]: https://docs.gitlab.com/api/groups/#create-a-group
func (c *Client) CreateGroup(ctx context.Context, req *CreateGroupRequest) (*Group, error) {
	if req == nil || req.Name == "" || req.Path == "" {
		return nil, errors.New("sourcehost: CreateGroup needs a name and a path")
	}
	return do[Group](ctx, c, http.MethodPost, "/groups", nil, req)
}

// UpdateGroupRequest is the body of PUT /groups/:id; nil and empty fields
// stay as they are.
type UpdateGroupRequest struct {
	Name        *string    `json:"name,omitempty"`
	Path        *string    `json:"path,omitempty"`
	Description *string    `json:"description,omitempty"`
	Visibility  Visibility `json:"visibility,omitempty"`
}

// UpdateGroup changes a group; it takes an owner. A new path moves the
// group's subgroups and projects with it.
//
// GitLab API: [PUT /groups/{id}]
//
// [PUT /groups/{id}]: https://docs.gitlab.com/api/groups/#update-group-attributes
func (c *Client) UpdateGroup(ctx context.Context, gid GroupRef, req *UpdateGroupRequest) (*Group, error) {
	if req == nil {
		req = &UpdateGroupRequest{}
	}
	path, err := groupPath(gid, "")
	if err != nil {
		return nil, err
	}
	return do[Group](ctx, c, http.MethodPut, path, nil, req)
}

// DeleteGroup deletes a group with its subgroups and their projects; it
// takes an owner. The server accepts the deletion (202) and may carry it
// out later.
//
// GitLab API: [DELETE /groups/{id}]
//
// [DELETE /groups/{id}]: https://docs.gitlab.com/api/groups/#delete-a-group
func (c *Client) DeleteGroup(ctx context.Context, gid GroupRef) error {
	path, err := groupPath(gid, "")
	if err != nil {
		return err
	}
	_, err = c.call(ctx, http.MethodDelete, path, nil, nil, nil)
	return err
}

// DeleteGroupPermanently deletes at once a group that delayed deletion
// has marked for deletion, with its subgroups and projects. fullPath must
// be its full path as it is now, marked; another is 400, as is a group not
// marked.
//
// GitLab API: [DELETE /groups/{id}]
//
// [DELETE /groups/{id}]: https://docs.gitlab.com/api/groups/#delete-a-group
func (c *Client) DeleteGroupPermanently(ctx context.Context, gid GroupRef, fullPath string) error {
	if fullPath == "" {
		return errors.New("sourcehost: DeleteGroupPermanently needs the group's full path")
	}
	path, err := groupPath(gid, "")
	if err != nil {
		return err
	}
	q := struct {
		Permanently bool   `url:"permanently_remove"`
		FullPath    string `url:"full_path"`
	}{true, fullPath}
	_, err = c.call(ctx, http.MethodDelete, path, q, nil, nil)
	return err
}

// RestoreGroup takes a group marked for deletion off the list, with its
// name and path back. A group that is not marked is 400.
//
// GitLab API: [POST /groups/{id}/restore]
//
// [POST /groups/{id}/restore]: https://docs.gitlab.com/api/groups/#restore-a-group-marked-for-deletion
func (c *Client) RestoreGroup(ctx context.Context, gid GroupRef) (*Group, error) {
	path, err := groupPath(gid, "/restore")
	if err != nil {
		return nil, err
	}
	return do[Group](ctx, c, http.MethodPost, path, nil, nil)
}

// ListSubgroups returns one page of the groups directly in a group.
//
// GitLab API: [GET /groups/{id}/subgroups]
//
// [GET /groups/{id}/subgroups]: https://docs.gitlab.com/api/groups/#list-subgroups
func (c *Client) ListSubgroups(ctx context.Context, gid GroupRef, opts *ListGroupsOptions) (*Page[Group], error) {
	path, err := groupPath(gid, "/subgroups")
	if err != nil {
		return nil, err
	}
	return list[Group](ctx, c, path, opts)
}

// AllSubgroups iterates the groups directly in a group.
//
// GitLab API: [GET /groups/{id}/subgroups]
//
// [GET /groups/{id}/subgroups]: https://docs.gitlab.com/api/groups/#list-subgroups
func (c *Client) AllSubgroups(ctx context.Context, gid GroupRef, opts *ListGroupsOptions) iter.Seq2[*Group, error] {
	return allInGroup[Group](ctx, c, gid, "/subgroups", opts)
}

// ListGroupProjectsOptions filters, orders and pages a group's projects.
type ListGroupProjectsOptions struct {
	ListOptions
	IncludeSubgroups *bool      `url:"include_subgroups,omitempty"`
	Search           string     `url:"search,omitempty"`
	Visibility       Visibility `url:"visibility,omitempty"`
	OrderBy          string     `url:"order_by,omitempty"` // created_at (default), id, name, path, updated_at, last_activity_at
	Sort             string     `url:"sort,omitempty"`     // asc or desc (default)
}

// ListGroupProjects returns one page of the projects in a group that the
// caller sees.
//
// GitLab API: [GET /groups/{id}/projects]
//
// [GET /groups/{id}/projects]: https://docs.gitlab.com/api/groups/#list-projects
func (c *Client) ListGroupProjects(ctx context.Context, gid GroupRef, opts *ListGroupProjectsOptions) (*Page[Project], error) {
	path, err := groupPath(gid, "/projects")
	if err != nil {
		return nil, err
	}
	return list[Project](ctx, c, path, opts)
}

// AllGroupProjects iterates a group's projects a page at a time.
//
// GitLab API: [GET /groups/{id}/projects]
//
// [GET /groups/{id}/projects]: https://docs.gitlab.com/api/groups/#list-projects
func (c *Client) AllGroupProjects(ctx context.Context, gid GroupRef, opts *ListGroupProjectsOptions) iter.Seq2[*Project, error] {
	return allInGroup[Project](ctx, c, gid, "/projects", opts)
}

// GroupMember is a user with an access level in a group.
type GroupMember struct {
	User
	AccessLevel     AccessLevel `json:"access_level"`
	CreatedAt       time.Time   `json:"created_at"`
	ExpiresAt       *Date       `json:"expires_at"` // nil: the membership does not expire
	MembershipState string      `json:"membership_state"`
}

// ListGroupMembersOptions filters and pages a group's members.
type ListGroupMembersOptions struct {
	ListOptions
	Query   string  `url:"query,omitempty"`          // in username and name
	UserIDs []int64 `url:"user_ids,comma,omitempty"` // only these users
}

// ListGroupMembers returns one page of a group's direct members.
//
// GitLab API: [GET /groups/{id}/members]
//
// [GET /groups/{id}/members]: https://docs.gitlab.com/api/members/#list-all-members-of-a-group-or-project
func (c *Client) ListGroupMembers(ctx context.Context, gid GroupRef, opts *ListGroupMembersOptions) (*Page[GroupMember], error) {
	path, err := groupPath(gid, "/members")
	if err != nil {
		return nil, err
	}
	return list[GroupMember](ctx, c, path, opts)
}

// AllGroupMembers iterates a group's direct members a page at a time.
//
// GitLab API: [GET /groups/{id}/members]
//
// [GET /groups/{id}/members]: https://docs.gitlab.com/api/members/#list-all-members-of-a-group-or-project
func (c *Client) AllGroupMembers(ctx context.Context, gid GroupRef, opts *ListGroupMembersOptions) iter.Seq2[*GroupMember, error] {
	return allInGroup[GroupMember](ctx, c, gid, "/members", opts)
}

// ListAllGroupMembers returns one page of a group's members and those it
// inherits from its parents, each with the highest level they have.
//
// GitLab API: [GET /groups/{id}/members/all]
//
// [GET /groups/{id}/members/all]: https://docs.gitlab.com/api/members/#list-all-members-of-a-group-or-project-including-inherited-and-invited-members
func (c *Client) ListAllGroupMembers(ctx context.Context, gid GroupRef, opts *ListGroupMembersOptions) (*Page[GroupMember], error) {
	path, err := groupPath(gid, "/members/all")
	if err != nil {
		return nil, err
	}
	return list[GroupMember](ctx, c, path, opts)
}

// AllGroupMembersInherited iterates what ListAllGroupMembers pages.
//
// GitLab API: [GET /groups/{id}/members/all]
//
// [GET /groups/{id}/members/all]: https://docs.gitlab.com/api/members/#list-all-members-of-a-group-or-project-including-inherited-and-invited-members
func (c *Client) AllGroupMembersInherited(ctx context.Context, gid GroupRef, opts *ListGroupMembersOptions) iter.Seq2[*GroupMember, error] {
	return allInGroup[GroupMember](ctx, c, gid, "/members/all", opts)
}

// allInGroup iterates a group's sub-collection.
func allInGroup[T, O any, PO interface {
	*O
	pager
}](ctx context.Context, c *Client, gid GroupRef, suffix string, opts PO) iter.Seq2[*T, error] {
	path, err := groupPath(gid, suffix)
	if err != nil {
		return func(yield func(*T, error) bool) { yield(nil, err) }
	}
	return all[T](ctx, c, path, opts)
}

// EncodeValues puts the level in a query as the API takes it, a number
// (30), not as String names it.
func (l AccessLevel) EncodeValues(key string, v *url.Values) error {
	v.Set(key, strconv.Itoa(int(l)))
	return nil
}
