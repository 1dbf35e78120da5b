package sourcehost

import (
	"context"
	"errors"
	"iter"
	"net/http"
	"net/url"
	"time"
)

// Release is a project's release, tied to a tag.
type Release struct {
	TagName         string        `json:"tag_name"`
	Name            string        `json:"name"`
	Description     string        `json:"description"`
	CreatedAt       time.Time     `json:"created_at"`
	ReleasedAt      time.Time     `json:"released_at"`
	UpcomingRelease bool          `json:"upcoming_release"` // released_at is in the future
	Author          *User         `json:"author"`
	Commit          *Commit       `json:"commit"`
	Milestones      []*Milestone  `json:"milestones"`
	Assets          ReleaseAssets `json:"assets"`
}

// ReleaseAssets are what a release offers for download.
type ReleaseAssets struct {
	Count   int `json:"count"`
	Sources []struct {
		Format string `json:"format"` // zip, tar.gz, …
		URL    string `json:"url"`
	} `json:"sources"`
}

// ListReleasesOptions orders and pages a project's releases.
type ListReleasesOptions struct {
	ListOptions
	OrderBy string `url:"order_by,omitempty"` // released_at (default) or created_at
	Sort    string `url:"sort,omitempty"`     // asc or desc (default)
}

// ListReleases returns one page of a project's releases, newest first.
//
// GitLab API: [GET /projects/{id}/releases]
//
// [GET /projects/{id}/releases]: https://docs.gitlab.com/api/releases/#list-releases
func (c *Client) ListReleases(ctx context.Context, pid ProjectRef, opts *ListReleasesOptions) (*Page[Release], error) {
	return listIn[Release](ctx, c, pid, "/releases", opts)
}

// AllReleases iterates a project's releases a page at a time.
//
// GitLab API: [GET /projects/{id}/releases]
//
// [GET /projects/{id}/releases]: https://docs.gitlab.com/api/releases/#list-releases
func (c *Client) AllReleases(ctx context.Context, pid ProjectRef, opts *ListReleasesOptions) iter.Seq2[*Release, error] {
	return allIn[Release](ctx, c, pid, "/releases", opts)
}

func releasePath(pid ProjectRef, tagName string) (string, error) {
	if tagName == "" {
		return "", errors.New("sourcehost: empty tag name")
	}
	return projectPath(pid, "/releases/"+url.PathEscape(tagName))
}

// GetRelease returns the release of a tag.
//
// GitLab API: [GET /projects/{id}/releases/{tag_name}]
//
// [GET /projects/{id}/releases/{tag_name}]: https://docs.gitlab.com/api/releases/#get-a-release-by-a-tag-name
func (c *Client) GetRelease(ctx context.Context, pid ProjectRef, tagName string) (*Release, error) {
	path, err := releasePath(pid, tagName)
	if err != nil {
		return nil, err
	}
	return do[Release](ctx, c, http.MethodGet, path, nil, nil)
}

// CreateReleaseRequest is the body of POST /projects/:id/releases.
type CreateReleaseRequest struct {
	TagName string `json:"tag_name"`
	// Ref is where to make the tag when it does not exist yet (then
	// required); TagMessage makes that tag annotated.
	Ref         string     `json:"ref,omitempty"`
	TagMessage  string     `json:"tag_message,omitempty"`
	Name        string     `json:"name,omitempty"` // default the tag name
	Description string     `json:"description,omitempty"`
	ReleasedAt  *time.Time `json:"released_at,omitempty"` // default now
	Milestones  []string   `json:"milestones,omitempty"`  // titles
}

// CreateRelease releases a tag (made from Ref when it does not exist). A
// tag released already is refused with 409 (ErrConflict); a missing tag
// without a Ref with 422.
//
// GitLab API: [POST /projects/{id}/releases]
//
// [POST /projects/{id}/releases]: https://docs.gitlab.com/api/releases/#create-a-release
func (c *Client) CreateRelease(ctx context.Context, pid ProjectRef, req *CreateReleaseRequest) (*Release, error) {
	if req == nil || req.TagName == "" {
		return nil, errors.New("sourcehost: CreateRelease needs a tag name")
	}
	path, err := projectPath(pid, "/releases")
	if err != nil {
		return nil, err
	}
	return do[Release](ctx, c, http.MethodPost, path, nil, req)
}

// UpdateReleaseRequest is the body of PUT /projects/:id/releases/:tag_name;
// nil fields are left as they are.
type UpdateReleaseRequest struct {
	Name        *string    `json:"name,omitempty"`
	Description *string    `json:"description,omitempty"`
	ReleasedAt  *time.Time `json:"released_at,omitempty"`
	Milestones  *[]string  `json:"milestones,omitempty"` // a pointer to an empty list removes them
}

// UpdateRelease changes a release.
//
// GitLab API: [PUT /projects/{id}/releases/{tag_name}]
//
// [PUT /projects/{id}/releases/{tag_name}]: https://docs.gitlab.com/api/releases/#update-a-release
func (c *Client) UpdateRelease(ctx context.Context, pid ProjectRef, tagName string, req *UpdateReleaseRequest) (*Release, error) {
	if req == nil {
		return nil, errors.New("sourcehost: UpdateRelease needs a request")
	}
	path, err := releasePath(pid, tagName)
	if err != nil {
		return nil, err
	}
	return do[Release](ctx, c, http.MethodPut, path, nil, req)
}

// DeleteRelease deletes a release (the tag stays) and returns it as it
// was.
//
// GitLab API: [DELETE /projects/{id}/releases/{tag_name}]
//
// [DELETE /projects/{id}/releases/{tag_name}]: https://docs.gitlab.com/api/releases/#delete-a-release
func (c *Client) DeleteRelease(ctx context.Context, pid ProjectRef, tagName string) (*Release, error) {
	path, err := releasePath(pid, tagName)
	if err != nil {
		return nil, err
	}
	return do[Release](ctx, c, http.MethodDelete, path, nil, nil)
}
