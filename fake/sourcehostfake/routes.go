package sourcehostfake

import "net/http"

// routes registers every endpoint the fake serves. Patterns are what
// InjectFault and RequestsTo take.
func (s *Server) routes() {
	const v4 = "/api/v4"
	s.handle("GET "+v4+"/user", needUserRead, (*call).currentUser)
	s.handle("GET "+v4+"/personal_access_tokens/self", needAnyScope, (*call).currentToken)

	s.handle("GET "+v4+"/projects", needRead, (*call).listProjects)
	s.handle("POST "+v4+"/projects", needWrite, (*call).createProject)
	s.handle("GET "+v4+"/projects/{id}", needRead, (*call).getProject)
	s.handle("POST "+v4+"/projects/{id}/star", needWrite, (*call).starProject)

	s.handle("GET "+v4+"/issues", needRead, (*call).listAllIssues)
	s.handle("GET "+v4+"/projects/{id}/issues", needRead, (*call).listIssues)
	s.handle("POST "+v4+"/projects/{id}/issues", needWrite, (*call).createIssue)
	s.handle("GET "+v4+"/projects/{id}/issues/{iid}", needRead, (*call).getIssue)
	s.handle("PUT "+v4+"/projects/{id}/issues/{iid}", needWrite, (*call).updateIssue)

	s.handle("GET "+v4+"/projects/{id}/merge_requests", needRead, (*call).listMergeRequests)
	s.handle("POST "+v4+"/projects/{id}/merge_requests", needWrite, (*call).createMergeRequest)
	s.handle("GET "+v4+"/projects/{id}/merge_requests/{iid}", needRead, (*call).getMergeRequest)
	s.handle("PUT "+v4+"/projects/{id}/merge_requests/{iid}", needWrite, (*call).updateMergeRequest)
	s.handle("PUT "+v4+"/projects/{id}/merge_requests/{iid}/merge", needWrite, (*call).acceptMergeRequest)

	s.handle("GET "+v4+"/projects/{id}/hooks", needRead, (*call).listHooks)
	s.handle("POST "+v4+"/projects/{id}/hooks", needWrite, (*call).addHook)
	s.handle("GET "+v4+"/projects/{id}/hooks/{hook_id}", needRead, (*call).getHook)
	s.handle("DELETE "+v4+"/projects/{id}/hooks/{hook_id}", needWrite, (*call).deleteHook)

	s.handle("GET "+v4+"/projects/{id}/pipelines", needRead, (*call).listPipelines)
	s.handle("GET "+v4+"/projects/{id}/pipelines/{pipeline_id}", needRead, (*call).getPipeline)
	s.handle("POST "+v4+"/projects/{id}/pipeline", needWrite, (*call).createPipeline)
	s.handle("POST "+v4+"/projects/{id}/pipelines/{pipeline_id}/cancel", needWrite, (*call).cancelPipeline)

	s.handle("GET "+v4+"/projects/{id}/repository/files/{file_path}", needRepoRead, (*call).getFile)
	s.handle("GET "+v4+"/projects/{id}/repository/files/{file_path}/raw", needRepoRead, (*call).getRawFile)
	s.handle("POST "+v4+"/projects/{id}/repository/files/{file_path}", needWrite, (*call).createFile)
	s.handle("GET "+v4+"/projects/{id}/repository/tree", needRepoRead, (*call).listTree)
	s.handle("GET "+v4+"/projects/{id}/repository/commits/{sha}", needRepoRead, (*call).getCommit)
	s.handle("GET "+v4+"/projects/{id}/repository/branches", needRepoRead, (*call).listBranches)
	s.handle("POST "+v4+"/projects/{id}/repository/branches", needWrite, (*call).createBranch)

	s.kit.NotFound(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`{"error":"404 Not Found"}`))
	})
}
