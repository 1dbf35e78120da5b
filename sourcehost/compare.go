package sourcehost

import (
	"context"
	"errors"
	"net/http"
)

// Comparison is what one ref has that another lacks: the commits, oldest
// first, and the files changed.
type Comparison struct {
	// Commit is the newest of Commits; nil when there are none.
	Commit         *Commit   `json:"commit"`
	Commits        []*Commit `json:"commits"`
	Diffs          []*Diff   `json:"diffs"`
	CompareTimeout bool      `json:"compare_timeout"`
	CompareSameRef bool      `json:"compare_same_ref"`
	WebURL         string    `json:"web_url"`
}

// CompareOptions are the refs Compare compares.
type CompareOptions struct {
	// From and To are branches, tags or commit SHAs; both are required.
	From string `url:"from"`
	To   string `url:"to"`
	// Straight compares From's files with To's directly (git's
	// "from..to"); by default the diff is To's since it left From (git's
	// "from...to", from their merge base).
	Straight bool `url:"straight,omitempty"`
}

// Compare compares two refs of a repository. An unknown ref is
// ErrNotFound.
//
// GitLab API: [GET /projects/{id}/repository/compare]
//
// [GET /projects/{id}/repository/compare]: https://docs.gitlab.com/api/repositories/#compare-branches-tags-or-commits
func (c *Client) Compare(ctx context.Context, pid ProjectRef, opts *CompareOptions) (*Comparison, error) {
	if opts == nil || opts.From == "" || opts.To == "" {
		return nil, errors.New("sourcehost: Compare needs From and To")
	}
	path, err := projectPath(pid, "/repository/compare")
	if err != nil {
		return nil, err
	}
	return do[Comparison](ctx, c, http.MethodGet, path, opts, nil)
}
