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

func (p *GetFileContentParams) tags() []string { return []string{projectTag(p.ProjectID)} }

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

func (p *ListRepositoryFilesParams) tags() []string { return []string{projectTag(p.ProjectID)} }

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

var getFileContentTool = define(tool{
	name:        "get_file_content",
	description: "Get a file of a project's repository, base64-encoded, with the last commit that changed it.",
	read:        true,
	params: []param{
		projectParam,
		{name: "file_path", kind: kindString, required: true, description: "Path of the file in the repository, e.g. src/main.go."},
		{name: "ref", kind: kindString, description: "Branch, tag or commit (default: the default branch)."},
	},
}, func(ctx context.Context, up *sourcehost.Client, p *GetFileContentParams) (*File, error) {
	pid := sourcehost.ProjectID(p.ProjectID)
	ref := p.Ref
	if ref == "" {
		// The files API needs a ref; the caller asked for the default branch.
		pr, err := up.GetProject(ctx, pid, nil)
		if err != nil {
			return nil, err
		}
		ref = pr.DefaultBranch
	}
	f, err := up.GetFile(ctx, pid, p.FilePath, ref)
	if err != nil {
		return nil, err
	}
	c, err := up.GetCommit(ctx, pid, f.LastCommitID)
	if err != nil {
		return nil, err
	}
	return &File{
		FileName: f.FileName, FilePath: f.FilePath, Ref: f.Ref, Content: f.Content, Encoding: f.Encoding, Size: f.Size,
		LastCommit: LastCommit{ID: c.ID, Message: c.Message, AuthorName: c.AuthorName},
	}, nil
})

var listRepositoryFilesTool = define(tool{
	name:        "list_repository_files",
	description: "List the files and directories of a project's repository at a path, optionally recursively.",
	read:        true,
	params: []param{
		projectParam,
		{name: "path", kind: kindString, description: "Directory to list (default: the root)."},
		{name: "ref", kind: kindString, description: "Branch, tag or commit (default: the default branch)."},
		{name: "recursive", kind: kindBoolean, description: "Include everything below path."},
		pageParam, perPageParam,
	},
}, func(ctx context.Context, up *sourcehost.Client, p *ListRepositoryFilesParams) (*Paged[RepositoryFile], error) {
	page, err := up.ListTree(ctx, sourcehost.ProjectID(p.ProjectID), &sourcehost.ListTreeOptions{
		ListOptions: listOptions(p.Page, p.PerPage), Path: p.Path, Ref: p.Ref, Recursive: p.Recursive,
	})
	if err != nil {
		return nil, err
	}
	return paged(page, func(n *sourcehost.TreeNode) RepositoryFile {
		return RepositoryFile{ID: n.ID, Name: n.Name, Type: n.Type, Path: n.Path, Mode: n.Mode}
	}), nil
})

// GetFileContent calls get_file_content.
func (c *Client) GetFileContent(ctx context.Context, p *GetFileContentParams) (*File, error) {
	return call[File](ctx, c, "get_file_content", p)
}

// ListRepositoryFiles calls list_repository_files.
func (c *Client) ListRepositoryFiles(ctx context.Context, p *ListRepositoryFilesParams) (*Paged[RepositoryFile], error) {
	return call[Paged[RepositoryFile]](ctx, c, "list_repository_files", p)
}
