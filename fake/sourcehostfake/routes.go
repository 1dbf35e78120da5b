package sourcehostfake

import (
	"net/http"
	"strings"
	"sync"

	"github.com/apitwin/apitwin/internal/fakekit"
)

// routeTable is every endpoint the fake serves, built once and shared by
// all instances. Its patterns are what InjectFault and RequestsTo take.
var routeTable = sync.OnceValue(func() *fakekit.Routes[*Server] {
	rt := fakekit.NewRoutes[*Server]()
	const v4 = "/api/v4"
	handle := func(pattern string, n need, fn func(c *call) fakekit.Answer) {
		rt.Handle(pattern, func(s *Server, w http.ResponseWriter, r *http.Request) { s.serve(w, r, n, nil, fn) })
	}
	// prepared: prep runs on the parameters before the state is locked.
	prepared := func(pattern string, n need, prep func(*params), fn func(c *call) fakekit.Answer) {
		rt.Handle(pattern, func(s *Server, w http.ResponseWriter, r *http.Request) { s.serve(w, r, n, prep, fn) })
	}
	handle("GET "+v4+"/user", needUserRead, (*call).currentUser)
	handle("GET "+v4+"/personal_access_tokens/self", needAnyScope, (*call).currentToken)

	handle("GET "+v4+"/projects", needRead, (*call).listProjects)
	handle("POST "+v4+"/projects", needWrite, (*call).createProject)
	handle("GET "+v4+"/projects/{id}", needRead, (*call).getProject)
	handle("POST "+v4+"/projects/{id}/star", needWrite, (*call).starProject)

	handle("GET "+v4+"/projects/{id}/members", needRead, (*call).listProjectMembers)
	handle("GET "+v4+"/projects/{id}/members/all", needRead, (*call).listAllProjectMembers)
	handle("GET "+v4+"/projects/{id}/members/{user_id}", needRead, (*call).getProjectMember)
	handle("GET "+v4+"/projects/{id}/members/all/{user_id}", needRead, (*call).getInheritedProjectMember)
	handle("POST "+v4+"/projects/{id}/members", needWrite, (*call).addProjectMember)
	handle("PUT "+v4+"/projects/{id}/members/{user_id}", needWrite, (*call).editProjectMember)
	handle("DELETE "+v4+"/projects/{id}/members/{user_id}", needWrite, (*call).removeProjectMember)

	handle("GET "+v4+"/issues", needRead, (*call).listAllIssues)
	handle("GET "+v4+"/projects/{id}/issues", needRead, (*call).listIssues)
	handle("POST "+v4+"/projects/{id}/issues", needWrite, (*call).createIssue)
	handle("GET "+v4+"/projects/{id}/issues/{iid}", needRead, (*call).getIssue)
	handle("PUT "+v4+"/projects/{id}/issues/{iid}", needWrite, (*call).updateIssue)

	handle("GET "+v4+"/projects/{id}/merge_requests", needRead, (*call).listMergeRequests)
	handle("POST "+v4+"/projects/{id}/merge_requests", needWrite, (*call).createMergeRequest)
	handle("GET "+v4+"/projects/{id}/merge_requests/{iid}", needRead, (*call).getMergeRequest)
	handle("PUT "+v4+"/projects/{id}/merge_requests/{iid}", needWrite, (*call).updateMergeRequest)
	handle("PUT "+v4+"/projects/{id}/merge_requests/{iid}/merge", needWrite, (*call).acceptMergeRequest)

	noteRoutes(handle)

	handle("GET "+v4+"/projects/{id}/labels", needRead, (*call).listLabels)
	handle("POST "+v4+"/projects/{id}/labels", needWrite, (*call).createLabel)
	handle("GET "+v4+"/projects/{id}/labels/{label_id}", needRead, (*call).getLabel)
	handle("PUT "+v4+"/projects/{id}/labels/{label_id}", needWrite, (*call).updateLabel)
	handle("DELETE "+v4+"/projects/{id}/labels/{label_id}", needWrite, (*call).deleteLabel)

	handle("GET "+v4+"/projects/{id}/milestones", needRead, (*call).listMilestones)
	handle("POST "+v4+"/projects/{id}/milestones", needWrite, (*call).createMilestone)
	handle("GET "+v4+"/projects/{id}/milestones/{milestone_id}", needRead, (*call).getMilestone)
	handle("PUT "+v4+"/projects/{id}/milestones/{milestone_id}", needWrite, (*call).updateMilestone)
	handle("DELETE "+v4+"/projects/{id}/milestones/{milestone_id}", needWrite, (*call).deleteMilestone)
	handle("GET "+v4+"/projects/{id}/milestones/{milestone_id}/issues", needRead, (*call).milestoneIssues)
	handle("GET "+v4+"/projects/{id}/milestones/{milestone_id}/merge_requests", needRead, (*call).milestoneMergeRequests)

	handle("GET "+v4+"/projects/{id}/hooks", needRead, (*call).listHooks)
	// A hook's URL is resolved, when its check needs it, before the state
	// is locked (lookupHookHost).
	rt.Handle("POST "+v4+"/projects/{id}/hooks", func(s *Server, w http.ResponseWriter, r *http.Request) {
		s.serve(w, r, needWrite, s.prepareHookURL, (*call).addHook)
	})
	handle("GET "+v4+"/projects/{id}/hooks/{hook_id}", needRead, (*call).getHook)
	rt.Handle("PUT "+v4+"/projects/{id}/hooks/{hook_id}", func(s *Server, w http.ResponseWriter, r *http.Request) {
		s.serve(w, r, needWrite, s.prepareHookURL, (*call).editHook)
	})
	handle("DELETE "+v4+"/projects/{id}/hooks/{hook_id}", needWrite, (*call).deleteHook)

	handle("GET "+v4+"/application/settings", needSignedRead, (*call).getSettings)
	handle("PUT "+v4+"/application/settings", needWrite, (*call).updateSettings)

	handle("GET "+v4+"/projects/{id}/pipelines", needRead, (*call).listPipelines)
	handle("GET "+v4+"/projects/{id}/pipelines/{pipeline_id}", needRead, (*call).getPipeline)
	handle("POST "+v4+"/projects/{id}/pipeline", needWrite, (*call).createPipeline)
	handle("POST "+v4+"/projects/{id}/pipelines/{pipeline_id}/cancel", needWrite, (*call).cancelPipeline)
	handle("GET "+v4+"/projects/{id}/pipelines/{pipeline_id}/jobs", needRead, (*call).listPipelineJobs)
	handle("GET "+v4+"/projects/{id}/jobs", needRead, (*call).listProjectJobs)
	handle("GET "+v4+"/projects/{id}/jobs/{job_id}", needRead, (*call).getJob)
	handle("GET "+v4+"/projects/{id}/jobs/{job_id}/trace", needRead, (*call).jobTrace)
	handle("POST "+v4+"/projects/{id}/jobs/{job_id}/cancel", needWrite, (*call).cancelJob)
	handle("POST "+v4+"/projects/{id}/jobs/{job_id}/retry", needWrite, (*call).retryJob)

	handle("GET "+v4+"/projects/{id}/repository/files/{file_path}", needRepoRead, (*call).getFile)
	handle("GET "+v4+"/projects/{id}/repository/files/{file_path}/raw", needRepoRead, (*call).getRawFile)
	prepared("POST "+v4+"/projects/{id}/repository/files/{file_path}", needWrite, prepareFile, (*call).createFile)
	prepared("PUT "+v4+"/projects/{id}/repository/files/{file_path}", needWrite, prepareFile, (*call).updateFile)
	handle("DELETE "+v4+"/projects/{id}/repository/files/{file_path}", needWrite, (*call).deleteFile)
	handle("GET "+v4+"/projects/{id}/repository/commits", needRepoRead, (*call).listCommits)
	handle("GET "+v4+"/projects/{id}/merge_requests/{iid}/commits", needRead, (*call).listMergeRequestCommits)
	handle("GET "+v4+"/projects/{id}/repository/tree", needRepoRead, (*call).listTree)
	handle("GET "+v4+"/projects/{id}/repository/commits/{sha}", needRepoRead, (*call).getCommit)
	handle("GET "+v4+"/projects/{id}/repository/branches", needRepoRead, (*call).listBranches)
	handle("POST "+v4+"/projects/{id}/repository/branches", needWrite, (*call).createBranch)
	handle("GET "+v4+"/projects/{id}/repository/branches/{branch}", needRepoRead, (*call).getBranch)
	handle("DELETE "+v4+"/projects/{id}/repository/branches/{branch}", needWrite, (*call).deleteBranch)
	handle("GET "+v4+"/projects/{id}/repository/tags", needRepoRead, (*call).listTags)
	handle("POST "+v4+"/projects/{id}/repository/tags", needWrite, (*call).createTag)
	handle("GET "+v4+"/projects/{id}/repository/tags/{tag_name}", needRepoRead, (*call).getTag)
	handle("DELETE "+v4+"/projects/{id}/repository/tags/{tag_name}", needWrite, (*call).deleteTag)
	handle("GET "+v4+"/projects/{id}/releases", needRead, (*call).listReleases)
	handle("POST "+v4+"/projects/{id}/releases", needWrite, (*call).createRelease)
	handle("GET "+v4+"/projects/{id}/releases/{tag_name}", needRead, (*call).getRelease)
	handle("PUT "+v4+"/projects/{id}/releases/{tag_name}", needWrite, (*call).updateRelease)
	handle("DELETE "+v4+"/projects/{id}/releases/{tag_name}", needWrite, (*call).deleteRelease)
	handle("GET "+v4+"/projects/{id}/protected_branches", needRead, (*call).listProtectedBranches)
	handle("POST "+v4+"/projects/{id}/protected_branches", needWrite, (*call).protectBranch)
	handle("GET "+v4+"/projects/{id}/protected_branches/{name}", needRead, (*call).getProtectedBranch)
	handle("DELETE "+v4+"/projects/{id}/protected_branches/{name}", needWrite, (*call).unprotectBranch)

	rt.NotFound(func(s *Server, w http.ResponseWriter, r *http.Request) {
		if !s.admit(w, r) {
			return
		}
		if allowed := rt.Allowed(r); len(allowed) > 0 {
			fakekit.WriteAnswer(w, fakekit.Answer{Status: http.StatusMethodNotAllowed, Body: map[string]string{"error": "405 Not Allowed"},
				Header: http.Header{"Allow": {strings.Join(allowed, ", ")}}})
			return
		}
		fakekit.WriteAnswer(w, fakekit.Answer{Status: http.StatusNotFound, Body: map[string]string{"error": "404 Not Found"}})
	})
	return rt
})
