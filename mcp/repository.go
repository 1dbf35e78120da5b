package mcp

import (
	"context"

	"github.com/apitwin/apitwin/sourcehost"
)

// GetFileContentParams are the params of get_file_content.
type GetFileContentParams struct {
	ProjectID int64  `json:"project_id"`
	FilePath  string `json:"file_path"`
	Ref       string `json:"ref,omitempty"` // default: the project's default branch
	CacheOptions
}

// ListRepositoryFilesParams are the params of list_repository_files.
type ListRepositoryFilesParams struct {
	ProjectID int64  `json:"project_id"`
	Path      string `json:"path,omitempty"` // a directory; default the root
	Ref       string `json:"ref,omitempty"`
	Recursive *bool  `json:"recursive,omitempty"`
	Page      int    `json:"page,omitempty"`
	PerPage   int    `json:"per_page,omitempty"`
	CacheOptions
}

// File is the result of get_file_content.
type File struct {
	FileName   string     `json:"file_name"`
	FilePath   string     `json:"file_path"`
	Ref        string     `json:"ref"`
	Content    string     `json:"content"`  // base64
	Encoding   string     `json:"encoding"` // "base64"
	Size       int64      `json:"size"`
	LastCommit LastCommit `json:"last_commit"`
}

// Decode returns the file's bytes.
func (f *File) Decode() ([]byte, error) {
	sf := sourcehost.File{Content: f.Content, Encoding: f.Encoding}
	return sf.Decode()
}

// LastCommit is the last commit that changed a file.
type LastCommit struct {
	ID         string `json:"id"`
	Message    string `json:"message"`
	AuthorName string `json:"author_name"`
}

// RepositoryFile is an entry of list_repository_files: a file ("blob") or a
// directory ("tree").
type RepositoryFile struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	Type string `json:"type"`
	Path string `json:"path"`
	Mode string `json:"mode"`
}

// GetFileContent calls get_file_content.
func (c *Client) GetFileContent(ctx context.Context, p *GetFileContentParams) (*File, error) {
	return call[File](ctx, c, "get_file_content", p)
}

// ListRepositoryFiles calls list_repository_files.
func (c *Client) ListRepositoryFiles(ctx context.Context, p *ListRepositoryFilesParams) (*Paged[RepositoryFile], error) {
	return call[Paged[RepositoryFile]](ctx, c, "list_repository_files", p)
}
