package sourcehost

import (
	"context"
	"errors"
	"iter"
	"net/http"
	"net/url"
	"time"
)

// Tag is a repository tag.
type Tag struct {
	Name string `json:"name"`
	// Message is an annotated tag's message; "" for a lightweight tag.
	Message string `json:"message"`
	// Target is the tag object's id (annotated) or the commit's.
	Target    string      `json:"target"`
	Commit    *Commit     `json:"commit"`
	Release   *TagRelease `json:"release"` // nil without a release
	Protected bool        `json:"protected"`
	CreatedAt *time.Time  `json:"created_at"` // annotated tags only
}

// TagRelease is the release a tag carries, as tags show it.
type TagRelease struct {
	TagName     string `json:"tag_name"`
	Description string `json:"description"`
}

// ListTagsOptions filters, orders and pages a repository's tags.
type ListTagsOptions struct {
	ListOptions
	// Search is a substring, "^prefix" or "suffix$".
	Search  string `url:"search,omitempty"`
	OrderBy string `url:"order_by,omitempty"` // updated (default), name or version
	Sort    string `url:"sort,omitempty"`     // asc or desc (default)
}

// ListTags returns one page of a repository's tags, most recently updated
// first by default.
//
// GitLab API: [GET /projects/{id}/repository/tags]
//
// [GET /projects/{id}/repository/tags]: https://docs.gitlab.com/api/tags/#list-project-repository-tags
func (c *Client) ListTags(ctx context.Context, pid ProjectRef, opts *ListTagsOptions) (*Page[Tag], error) {
	return listIn[Tag](ctx, c, pid, "/repository/tags", opts)
}

// AllTags iterates a repository's tags a page at a time.
//
// GitLab API: [GET /projects/{id}/repository/tags]
//
// [GET /projects/{id}/repository/tags]: https://docs.gitlab.com/api/tags/#list-project-repository-tags
func (c *Client) AllTags(ctx context.Context, pid ProjectRef, opts *ListTagsOptions) iter.Seq2[*Tag, error] {
	return allIn[Tag](ctx, c, pid, "/repository/tags", opts)
}

func tagPath(pid ProjectRef, name string) (string, error) {
	if name == "" {
		return "", errors.New("sourcehost: empty tag name")
	}
	return projectPath(pid, "/repository/tags/"+url.PathEscape(name))
}

// GetTag returns one tag.
//
// GitLab API: [GET /projects/{id}/repository/tags/{tag_name}]
//
// [GET /projects/{id}/repository/tags/{tag_name}]: https://docs.gitlab.com/api/tags/#get-a-single-repository-tag
func (c *Client) GetTag(ctx context.Context, pid ProjectRef, name string) (*Tag, error) {
	path, err := tagPath(pid, name)
	if err != nil {
		return nil, err
	}
	return do[Tag](ctx, c, http.MethodGet, path, nil, nil)
}

// CreateTagRequest is the body of POST /projects/:id/repository/tags.
type CreateTagRequest struct {
	TagName string `json:"tag_name"`
	Ref     string `json:"ref"` // a branch, a tag or a commit SHA
	// Message makes an annotated tag.
	Message string `json:"message,omitempty"`
}

// CreateTag tags a ref. A name in use is refused with 400.
//
// GitLab API: [POST /projects/{id}/repository/tags]
//
// [POST /projects/{id}/repository/tags]: https://docs.gitlab.com/api/tags/#create-a-new-tag
func (c *Client) CreateTag(ctx context.Context, pid ProjectRef, req *CreateTagRequest) (*Tag, error) {
	if req == nil || req.TagName == "" || req.Ref == "" {
		return nil, errors.New("sourcehost: CreateTag needs a tag name and a ref")
	}
	path, err := projectPath(pid, "/repository/tags")
	if err != nil {
		return nil, err
	}
	return do[Tag](ctx, c, http.MethodPost, path, nil, req)
}

// DeleteTag deletes a tag, and the release it carries.
//
// GitLab API: [DELETE /projects/{id}/repository/tags/{tag_name}]
//
// [DELETE /projects/{id}/repository/tags/{tag_name}]: https://docs.gitlab.com/api/tags/#delete-a-tag
func (c *Client) DeleteTag(ctx context.Context, pid ProjectRef, name string) error {
	path, err := tagPath(pid, name)
	if err != nil {
		return err
	}
	_, err = c.call(ctx, http.MethodDelete, path, nil, nil, nil)
	return err
}
