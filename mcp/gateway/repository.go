package gateway

import (
	"context"

	"github.com/apitwin/apitwin/mcp"
	"github.com/apitwin/apitwin/sourcehost"
)

var getFileContentTool = define(tool{
	name:        "get_file_content",
	title:       "Get a file",
	description: "Get a file of a project's repository, base64-encoded, with the last commit that changed it.",
	params: []param{
		projectParam,
		{name: "file_path", kind: kindString, required: true, description: "Path of the file in the repository, e.g. src/main.go."},
		{name: "ref", kind: kindString, description: "Branch, tag or commit (default: the default branch)."},
	},
}, calls[mcp.GetFileContentParams, *mcp.File]{
	cache: func(p *mcp.GetFileContentParams) *mcp.CacheOptions { return &p.CacheOptions },
	tags:  func(p *mcp.GetFileContentParams) []string { return projectTags(p.ProjectID) },
	run: func(ctx context.Context, up *sourcehost.Client, p *mcp.GetFileContentParams) (*mcp.File, error) {
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
		return &mcp.File{
			FileName: f.FileName, FilePath: f.FilePath, Ref: f.Ref, Content: f.Content, Encoding: f.Encoding, Size: f.Size,
			LastCommit: mcp.LastCommit{ID: c.ID, Message: c.Message, AuthorName: c.AuthorName},
		}, nil
	},
})

var listRepositoryFilesTool = define(tool{
	name:        "list_repository_files",
	title:       "List repository files",
	description: "List the files and directories of a project's repository at a path, optionally recursively.",
	params: []param{
		projectParam,
		{name: "path", kind: kindString, description: "Directory to list (default: the root)."},
		{name: "ref", kind: kindString, description: "Branch, tag or commit (default: the default branch)."},
		{name: "recursive", kind: kindBoolean, description: "Include everything below path."},
		pageParam, perPageParam,
	},
}, calls[mcp.ListRepositoryFilesParams, *mcp.Paged[mcp.RepositoryFile]]{
	cache: func(p *mcp.ListRepositoryFilesParams) *mcp.CacheOptions { return &p.CacheOptions },
	tags:  func(p *mcp.ListRepositoryFilesParams) []string { return projectTags(p.ProjectID) },
	run: func(ctx context.Context, up *sourcehost.Client, p *mcp.ListRepositoryFilesParams) (*mcp.Paged[mcp.RepositoryFile], error) {
		page, err := up.ListTree(ctx, sourcehost.ProjectID(p.ProjectID), &sourcehost.ListTreeOptions{
			ListOptions: listOptions(p.Page, p.PerPage), Path: p.Path, Ref: p.Ref, Recursive: p.Recursive,
		})
		if err != nil {
			return nil, err
		}
		return paged(page, func(n *sourcehost.TreeNode) mcp.RepositoryFile {
			return mcp.RepositoryFile{ID: n.ID, Name: n.Name, Type: n.Type, Path: n.Path, Mode: n.Mode}
		}), nil
	},
})
