package sourcehost

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// File is a repository file with its content, from GET
// /projects/:id/repository/files/:file_path.
type File struct {
	FileName        string `json:"file_name"`
	FilePath        string `json:"file_path"`
	Size            int64  `json:"size"`
	Encoding        string `json:"encoding"` // "base64"
	Content         string `json:"content"`  // encoded as Encoding says; see Decode
	ContentSHA256   string `json:"content_sha256"`
	Ref             string `json:"ref"`
	BlobID          string `json:"blob_id"`
	CommitID        string `json:"commit_id"`
	LastCommitID    string `json:"last_commit_id"` // the last commit that changed the file
	ExecuteFilemode bool   `json:"execute_filemode"`
}

// Decode returns the file's content as bytes.
func (f *File) Decode() ([]byte, error) {
	switch f.Encoding {
	case "base64":
		return base64.StdEncoding.DecodeString(f.Content)
	case "", "text":
		return []byte(f.Content), nil
	}
	return nil, fmt.Errorf("sourcehost: unknown file encoding %q", f.Encoding)
}

func filePath(pid ProjectRef, file string) (string, error) {
	file = strings.TrimPrefix(file, "/")
	if file == "" {
		return "", errors.New("sourcehost: empty file path")
	}
	return projectPath(pid, "/repository/files/"+url.PathEscape(file))
}

// GetFile returns a file at a ref (a branch, tag or commit).
//
// GitLab API: [GET /projects/{id}/repository/files/{file_path}]
//
// [GET /projects/{id}/repository/files/{file_path}]: https://docs.gitlab.com/api/repository_files/#get-file-from-repository
func (c *Client) GetFile(ctx context.Context, pid ProjectRef, file, ref string) (*File, error) {
	if ref == "" {
		return nil, errors.New("sourcehost: GetFile needs a ref")
	}
	path, err := filePath(pid, file)
	if err != nil {
		return nil, err
	}
	return do[File](ctx, c, http.MethodGet, path, struct {
		Ref string `url:"ref"`
	}{ref}, nil)
}

// GetRawFile returns a file's bytes at a ref (a branch, tag or commit; ""
// for the project's default branch), without GetFile's metadata and
// encoding.
//
// GitLab API: [GET /projects/{id}/repository/files/{file_path}/raw]
//
// [GET /projects/{id}/repository/files/{file_path}/raw]: https://docs.gitlab.com/api/repository_files/#get-raw-file-from-repository
func (c *Client) GetRawFile(ctx context.Context, pid ProjectRef, file, ref string) ([]byte, error) {
	path, err := filePath(pid, file)
	if err != nil {
		return nil, err
	}
	var q any
	if ref != "" {
		q = struct {
			Ref string `url:"ref"`
		}{ref}
	}
	var buf bytes.Buffer
	if _, err := c.call(ctx, http.MethodGet, path+"/raw", q, nil, &buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// GetRawBlob returns the bytes of a blob of the repository by its id (a
// File's BlobID, a TreeNode's ID).
//
// GitLab API: [GET /projects/{id}/repository/blobs/{sha}/raw]
//
// [GET /projects/{id}/repository/blobs/{sha}/raw]: https://docs.gitlab.com/api/repositories/#raw-blob-content
func (c *Client) GetRawBlob(ctx context.Context, pid ProjectRef, sha string) ([]byte, error) {
	if sha == "" {
		return nil, errors.New("sourcehost: GetRawBlob needs a blob SHA")
	}
	path, err := projectPath(pid, "/repository/blobs/"+url.PathEscape(sha)+"/raw")
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if _, err := c.call(ctx, http.MethodGet, path, nil, nil, &buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// BlameRange is a run of a file's lines that one commit last changed.
type BlameRange struct {
	Commit *Commit `json:"commit"`
	// Lines are the lines, without their line ends.
	Lines []string `json:"lines"`
}

// GetFileBlame returns who last changed each line of a file at a ref (a
// branch, tag or commit), as runs of lines in order.
//
// GitLab API: [GET /projects/{id}/repository/files/{file_path}/blame]
//
// [GET /projects/{id}/repository/files/{file_path}/blame]: https://docs.gitlab.com/api/repository_files/#get-file-blame-from-repository
func (c *Client) GetFileBlame(ctx context.Context, pid ProjectRef, file, ref string) ([]*BlameRange, error) {
	if ref == "" {
		return nil, errors.New("sourcehost: GetFileBlame needs a ref")
	}
	path, err := filePath(pid, file)
	if err != nil {
		return nil, err
	}
	var out []*BlameRange
	if _, err := c.call(ctx, http.MethodGet, path+"/blame", struct {
		Ref string `url:"ref"`
	}{ref}, nil, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// CreateFileRequest commits a new file to a branch.
type CreateFileRequest struct {
	Branch        string `json:"branch"`
	Content       string `json:"content"`
	CommitMessage string `json:"commit_message"`
	// Encoding is "text" (default) or "base64" for binary content.
	Encoding    string `json:"encoding,omitempty"`
	AuthorName  string `json:"author_name,omitempty"`
	AuthorEmail string `json:"author_email,omitempty"`
	// StartBranch creates Branch from it when Branch does not exist yet.
	StartBranch string `json:"start_branch,omitempty"`
}

// FileInfo is the answer to a file commit.
type FileInfo struct {
	FilePath string `json:"file_path"`
	Branch   string `json:"branch"`
}

// CreateFile commits a new file; a file that exists already is refused (400).
//
// GitLab API: [POST /projects/{id}/repository/files/{file_path}]
//
// [POST /projects/{id}/repository/files/{file_path}]: https://docs.gitlab.com/api/repository_files/#create-new-file-in-repository
func (c *Client) CreateFile(ctx context.Context, pid ProjectRef, file string, req *CreateFileRequest) (*FileInfo, error) {
	if req == nil || req.Branch == "" || req.CommitMessage == "" {
		return nil, errors.New("sourcehost: CreateFile needs a branch and a commit message")
	}
	path, err := filePath(pid, file)
	if err != nil {
		return nil, err
	}
	return do[FileInfo](ctx, c, http.MethodPost, path, nil, req)
}

// TreeNode is an entry of a repository tree.
type TreeNode struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	Type string `json:"type"` // "tree" (a directory) or "blob" (a file)
	Path string `json:"path"`
	Mode string `json:"mode"`
}

// ListTreeOptions selects part of a repository tree.
type ListTreeOptions struct {
	ListOptions
	Path      string `url:"path,omitempty"`      // a directory; default the root
	Ref       string `url:"ref,omitempty"`       // default the default branch
	Recursive *bool  `url:"recursive,omitempty"` // include everything below Path
}

// ListTree returns one page of a repository tree listing.
//
// GitLab API: [GET /projects/{id}/repository/tree]
//
// [GET /projects/{id}/repository/tree]: https://docs.gitlab.com/api/repositories/#list-repository-tree
func (c *Client) ListTree(ctx context.Context, pid ProjectRef, opts *ListTreeOptions) (*Page[TreeNode], error) {
	return listIn[TreeNode](ctx, c, pid, "/repository/tree", opts)
}

// AllTree iterates a repository tree listing a page at a time.
//
// GitLab API: [GET /projects/{id}/repository/tree]
//
// [GET /projects/{id}/repository/tree]: https://docs.gitlab.com/api/repositories/#list-repository-tree
func (c *Client) AllTree(ctx context.Context, pid ProjectRef, opts *ListTreeOptions) iter.Seq2[*TreeNode, error] {
	return allIn[TreeNode](ctx, c, pid, "/repository/tree", opts)
}

// Commit is a repository commit.
type Commit struct {
	ID             string    `json:"id"`
	ShortID        string    `json:"short_id"`
	Title          string    `json:"title"`
	Message        string    `json:"message"`
	AuthorName     string    `json:"author_name"`
	AuthorEmail    string    `json:"author_email"`
	AuthoredDate   time.Time `json:"authored_date"`
	CommitterName  string    `json:"committer_name"`
	CommitterEmail string    `json:"committer_email"`
	CommittedDate  time.Time `json:"committed_date"`
	CreatedAt      time.Time `json:"created_at"`
	ParentIDs      []string  `json:"parent_ids"`
	WebURL         string    `json:"web_url"`
}

// GetCommit returns a commit by its SHA, or the head of a branch or tag.
//
// GitLab API: [GET /projects/{id}/repository/commits/{sha}]
//
// [GET /projects/{id}/repository/commits/{sha}]: https://docs.gitlab.com/api/commits/#get-a-single-commit
func (c *Client) GetCommit(ctx context.Context, pid ProjectRef, sha string) (*Commit, error) {
	if sha == "" {
		return nil, errors.New("sourcehost: GetCommit needs a SHA or ref")
	}
	path, err := projectPath(pid, "/repository/commits/"+url.PathEscape(sha))
	if err != nil {
		return nil, err
	}
	return do[Commit](ctx, c, http.MethodGet, path, nil, nil)
}

// Branch is a repository branch.
type Branch struct {
	Name      string  `json:"name"`
	Commit    *Commit `json:"commit"`
	Merged    bool    `json:"merged"`
	Protected bool    `json:"protected"`
	Default   bool    `json:"default"`
	WebURL    string  `json:"web_url"`
}

// ListBranchesOptions filters and pages a repository's branches.
type ListBranchesOptions struct {
	ListOptions
	Search string `url:"search,omitempty"`
}

// ListBranches returns one page of a repository's branches, by name.
//
// GitLab API: [GET /projects/{id}/repository/branches]
//
// [GET /projects/{id}/repository/branches]: https://docs.gitlab.com/api/branches/#list-repository-branches
func (c *Client) ListBranches(ctx context.Context, pid ProjectRef, opts *ListBranchesOptions) (*Page[Branch], error) {
	return listIn[Branch](ctx, c, pid, "/repository/branches", opts)
}

// CreateBranch creates a branch at ref (a branch name or commit SHA).
//
// GitLab API: [POST /projects/{id}/repository/branches]
//
// [POST /projects/{id}/repository/branches]: https://docs.gitlab.com/api/branches/#create-repository-branch
func (c *Client) CreateBranch(ctx context.Context, pid ProjectRef, branch, ref string) (*Branch, error) {
	if branch == "" || ref == "" {
		return nil, errors.New("sourcehost: CreateBranch needs a branch name and a ref")
	}
	path, err := projectPath(pid, "/repository/branches")
	if err != nil {
		return nil, err
	}
	return do[Branch](ctx, c, http.MethodPost, path, struct {
		Branch string `url:"branch"`
		Ref    string `url:"ref"`
	}{branch, ref}, nil)
}

// ArchiveOptions choose what GetRepositoryArchive sends.
type ArchiveOptions struct {
	// Format is tar.gz (the default, also tgz or gz), tar or zip; GitLab
	// also writes tar.bz2 (tbz, tbz2, tb2, bz2). It goes in the path.
	Format string `url:"-"`
	// SHA is the branch, tag or commit to archive; default the default
	// branch.
	SHA string `url:"sha,omitempty"`
	// Path narrows the archive to a directory (or file) of the repository.
	Path string `url:"path,omitempty"`
}

// GetRepositoryArchive writes an archive of the repository's files at a
// commit to w, as it arrives (it is never whole in memory). Its entries
// are under one directory named after the project, ref, commit and path,
// as the archive's file name is (in the answer's Content-Disposition,
// which apicall.Capture reports). A failure part way through is returned,
// not retried: w may then hold part of the archive.
//
// GitLab API: [GET /projects/{id}/repository/archive]
//
// [GET /projects/{id}/repository/archive]: https://docs.gitlab.com/api/repositories/#get-file-archive
func (c *Client) GetRepositoryArchive(ctx context.Context, pid ProjectRef, w io.Writer, opts *ArchiveOptions) error {
	if w == nil {
		return errors.New("sourcehost: GetRepositoryArchive needs a writer")
	}
	suffix := ""
	var q any
	if opts != nil {
		if f := opts.Format; f != "" {
			if strings.Trim(f, "abcdefghijklmnopqrstuvwxyz0123456789.") != "" || strings.HasPrefix(f, ".") {
				return fmt.Errorf("sourcehost: archive format %q: want tar.gz, tar, zip or another of GitLab's", f)
			}
			suffix = "." + f
		}
		q = opts
	}
	path, err := projectPath(pid, "/repository/archive"+suffix)
	if err != nil {
		return err
	}
	_, err = c.call(ctx, http.MethodGet, path, q, nil, w)
	return err
}
