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
)

// Label is a project's label. The counts are filled in for a single label,
// and for lists when ListLabelsOptions.WithCounts is set.
type Label struct {
	ID                     int64  `json:"id"`
	Name                   string `json:"name"`
	Color                  string `json:"color"`      // "#d9534f"
	TextColor              string `json:"text_color"` // what reads well on Color
	Description            string `json:"description"`
	OpenIssuesCount        int    `json:"open_issues_count"`
	ClosedIssuesCount      int    `json:"closed_issues_count"`
	OpenMergeRequestsCount int    `json:"open_merge_requests_count"`
	Subscribed             bool   `json:"subscribed"`
	Priority               *int64 `json:"priority"` // nil: not prioritized
	IsProjectLabel         bool   `json:"is_project_label"`
}

// ListLabelsOptions filters and pages a project's labels.
type ListLabelsOptions struct {
	ListOptions
	WithCounts *bool  `url:"with_counts,omitempty"`
	Search     string `url:"search,omitempty"`
}

// ListLabels returns one page of a project's labels, by name.
//
// GitLab API: [GET /projects/{id}/labels]
//
// [GET /projects/{id}/labels]: https://docs.gitlab.com/api/labels/#list-labels
func (c *Client) ListLabels(ctx context.Context, pid ProjectRef, opts *ListLabelsOptions) (*Page[Label], error) {
	return listIn[Label](ctx, c, pid, "/labels", opts)
}

// AllLabels iterates a project's labels a page at a time.
//
// GitLab API: [GET /projects/{id}/labels]
//
// [GET /projects/{id}/labels]: https://docs.gitlab.com/api/labels/#list-labels
func (c *Client) AllLabels(ctx context.Context, pid ProjectRef, opts *ListLabelsOptions) iter.Seq2[*Label, error] {
	return allIn[Label](ctx, c, pid, "/labels", opts)
}

// labelPath is the path of a label named by id or by name.
func labelPath(pid ProjectRef, label string) (string, error) {
	if strings.TrimSpace(label) == "" {
		return "", errors.New("sourcehost: empty label")
	}
	return projectPath(pid, "/labels/"+url.PathEscape(label))
}

// GetLabel returns a label by its name (or its id, in decimal).
//
// GitLab API: [GET /projects/{id}/labels/{label_id}]
//
// [GET /projects/{id}/labels/{label_id}]: https://docs.gitlab.com/api/labels/#get-a-single-project-label
func (c *Client) GetLabel(ctx context.Context, pid ProjectRef, label string) (*Label, error) {
	path, err := labelPath(pid, label)
	if err != nil {
		return nil, err
	}
	return do[Label](ctx, c, http.MethodGet, path, nil, nil)
}

// CheckLabelName reports what the server would refuse in a label name:
// a blank one, a comma, a control character, more than 255 characters.
func CheckLabelName(name string) error {
	switch {
	case strings.TrimSpace(name) == "":
		return errors.New("sourcehost: empty label name")
	case len([]rune(name)) > 255:
		return errors.New("sourcehost: label name over 255 characters")
	case strings.ContainsAny(name, ",") || strings.ContainsFunc(name, func(r rune) bool { return r < 0x20 || r == 0x7f }):
		return fmt.Errorf("sourcehost: label name %q holds a comma or a control character", name)
	}
	return nil
}

// CreateLabelRequest is the body of POST /projects/:id/labels.
type CreateLabelRequest struct {
	Name string `json:"name"`
	// Color is "#RRGGBB", "#RGB" or a CSS color name; required.
	Color       string `json:"color"`
	Description string `json:"description,omitempty"`
	Priority    *int64 `json:"priority,omitempty"`
}

// CreateLabel adds a label to a project. It takes a reporter; a name the
// project has already (in any case) is refused with 409 (ErrConflict).
//
// GitLab API: [POST /projects/{id}/labels]
//
// [POST /projects/{id}/labels]: https://docs.gitlab.com/api/labels/#create-a-new-label
func (c *Client) CreateLabel(ctx context.Context, pid ProjectRef, req *CreateLabelRequest) (*Label, error) {
	if req == nil || req.Color == "" {
		return nil, errors.New("sourcehost: CreateLabel needs a name and a color")
	}
	if err := CheckLabelName(req.Name); err != nil {
		return nil, err
	}
	path, err := projectPath(pid, "/labels")
	if err != nil {
		return nil, err
	}
	return do[Label](ctx, c, http.MethodPost, path, nil, req)
}

// UpdateLabelRequest is the body of PUT /projects/:id/labels/:label; nil
// fields are left as they are.
type UpdateLabelRequest struct {
	NewName     *string `json:"new_name,omitempty"`
	Color       *string `json:"color,omitempty"`
	Description *string `json:"description,omitempty"`
	Priority    *int64  `json:"priority,omitempty"`
}

// UpdateLabel changes a label; a new name is applied to the issues and
// merge requests that carry it.
//
// GitLab API: [PUT /projects/{id}/labels/{label_id}]
//
// [PUT /projects/{id}/labels/{label_id}]: https://docs.gitlab.com/api/labels/#edit-an-existing-label
func (c *Client) UpdateLabel(ctx context.Context, pid ProjectRef, label string, req *UpdateLabelRequest) (*Label, error) {
	if req == nil {
		return nil, errors.New("sourcehost: UpdateLabel needs a request")
	}
	if req.NewName != nil {
		if err := CheckLabelName(*req.NewName); err != nil {
			return nil, err
		}
	}
	path, err := labelPath(pid, label)
	if err != nil {
		return nil, err
	}
	return do[Label](ctx, c, http.MethodPut, path, nil, req)
}

// DeleteLabel removes a label from the project and from its issues and
// merge requests.
//
// GitLab API: [DELETE /projects/{id}/labels/{label_id}]
//
// [DELETE /projects/{id}/labels/{label_id}]: https://docs.gitlab.com/api/labels/#delete-a-label
func (c *Client) DeleteLabel(ctx context.Context, pid ProjectRef, label string) error {
	path, err := labelPath(pid, label)
	if err != nil {
		return err
	}
	_, err = c.call(ctx, http.MethodDelete, path, nil, nil, nil)
	return err
}

// LabelID names a label by its id where a method takes a label's name or
// id: c.GetLabel(ctx, pid, sourcehost.LabelID(7)).
func LabelID(id int64) string { return strconv.FormatInt(id, 10) }
