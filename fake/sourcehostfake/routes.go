package sourcehostfake

import (
	"fmt"
	"net/http"
	"strings"
	"sync"

	"github.com/apitwin/apitwin/internal/apitable"
	"github.com/apitwin/apitwin/internal/fakekit"
)

// route is how the fake serves one endpoint: the token scope it needs, an
// optional step on the parameters before the state is locked, and the
// handler.
type route struct {
	need need
	prep func(*Server, *params)
	fn   func(c *call) fakekit.Answer
}

// handlers binds each row of the endpoint table (apitable.Sourcehost, where
// the paths are) to its handler, by the row's Handler name.
var handlers = map[string]route{
	"currentUser":  {need: needUserRead, fn: (*call).currentUser},
	"currentToken": {need: needAnyScope, fn: (*call).currentToken},
	"version":      {need: needUserRead, fn: (*call).version},

	// Users, their tokens, and groups (users.go, tokens.go, groups.go).
	"revokeCurrentToken":  {need: needAnyScope, fn: (*call).revokeCurrentToken},
	"listTokens":          {need: needSignedRead, fn: (*call).listTokens},
	"getToken":            {need: needSignedRead, fn: (*call).getToken},
	"revokeToken":         {need: needWrite, fn: (*call).revokeToken},
	"createUserToken":     {need: needWrite, fn: (*call).createUserToken},
	"listUsers":           {need: needUsersRead, fn: (*call).listUsers},
	"getUser":             {need: needUsersRead, fn: (*call).getUser},
	"listGroups":          {need: needRead, fn: (*call).listGroups},
	"createGroup":         {need: needWrite, fn: (*call).createGroup},
	"getGroup":            {need: needRead, fn: (*call).getGroup},
	"updateGroup":         {need: needWrite, fn: (*call).updateGroup},
	"deleteGroup":         {need: needWrite, fn: (*call).deleteGroup},
	"listSubgroups":       {need: needRead, fn: (*call).listSubgroups},
	"listGroupProjects":   {need: needRead, fn: (*call).listGroupProjects},
	"listGroupMembers":    {need: needRead, fn: (*call).listGroupMembers},
	"listAllGroupMembers": {need: needRead, fn: (*call).listAllGroupMembers},
	// A job token's own job; the token is checked before (auth.go).
	"currentJob": {need: needRead, fn: (*call).currentJob},

	"searchGlobal":      {need: needSignedRead, fn: (*call).searchGlobal},
	"searchGroup":       {need: needSignedRead, fn: (*call).searchGroup},
	"searchGroupDash":   {need: needSignedRead, fn: (*call).searchGroup},
	"searchProject":     {need: needSignedRead, fn: (*call).searchProject},
	"searchProjectDash": {need: needSignedRead, fn: (*call).searchProject},

	"listProjects":  {need: needRead, fn: (*call).listProjects},
	"createProject": {need: needWrite, fn: (*call).createProject},
	"getProject":    {need: needRead, fn: (*call).getProject},
	"starProject":   {need: needWrite, fn: (*call).starProject},

	"updateProject":    {need: needWrite, fn: (*call).updateProject},
	"deleteProject":    {need: needWrite, fn: (*call).deleteProject},
	"unstarProject":    {need: needWrite, fn: (*call).unstarProject},
	"archiveProject":   {need: needWrite, fn: (*call).archiveProject},
	"unarchiveProject": {need: needWrite, fn: (*call).unarchiveProject},
	"transferProject":  {need: needWrite, fn: (*call).transferProject},
	"forkProject":      {need: needWrite, fn: (*call).forkProject},
	"listProjectForks": {need: needRead, fn: (*call).listProjectForks},

	"listProjectMembers":        {need: needRead, fn: (*call).listProjectMembers},
	"listAllProjectMembers":     {need: needRead, fn: (*call).listAllProjectMembers},
	"getProjectMember":          {need: needRead, fn: (*call).getProjectMember},
	"getInheritedProjectMember": {need: needRead, fn: (*call).getInheritedProjectMember},
	"addProjectMember":          {need: needWrite, fn: (*call).addProjectMember},
	"editProjectMember":         {need: needWrite, fn: (*call).editProjectMember},
	"removeProjectMember":       {need: needWrite, fn: (*call).removeProjectMember},

	"listAllIssues": {need: needRead, fn: (*call).listAllIssues},
	"listIssues":    {need: needRead, fn: (*call).listIssues},
	"createIssue":   {need: needWrite, fn: (*call).createIssue},
	"getIssue":      {need: needRead, fn: (*call).getIssue},
	"updateIssue":   {need: needWrite, fn: (*call).updateIssue},

	"listMergeRequests":             {need: needRead, fn: (*call).listMergeRequests},
	"createMergeRequest":            {need: needWrite, fn: (*call).createMergeRequest},
	"getMergeRequest":               {need: needRead, fn: (*call).getMergeRequest},
	"updateMergeRequest":            {need: needWrite, fn: (*call).updateMergeRequest},
	"acceptMergeRequest":            {need: needWrite, fn: (*call).acceptMergeRequest},
	"rebaseMergeRequest":            {need: needWrite, fn: (*call).rebaseMergeRequest},
	"restoreGroup":                  {need: needWrite, fn: (*call).restoreGroup},
	"restoreProject":                {need: needWrite, fn: (*call).restoreProject},
	"repositoryArchive":             {need: needRepoRead, fn: (*call).repositoryArchive},
	"repositoryArchiveFormat":       {need: needRepoRead, fn: (*call).repositoryArchiveFormat},
	"listMergeRequestCommits":       {need: needRead, fn: (*call).listMergeRequestCommits},
	"listMergeRequestDiscussions":   {need: needRead, fn: notesOf("MergeRequest", (*call).listDiscussions)},
	"getMergeRequestDiscussion":     {need: needRead, fn: notesOf("MergeRequest", (*call).getDiscussion)},
	"createMergeRequestDiscussion":  {need: needWrite, fn: notesOf("MergeRequest", (*call).createDiscussion)},
	"replyToMergeRequestDiscussion": {need: needWrite, fn: notesOf("MergeRequest", (*call).replyToDiscussion)},
	"resolveMergeRequestDiscussion": {need: needWrite, fn: notesOf("MergeRequest", (*call).resolveDiscussion)},
	"mergeRequestChanges":           {need: needRead, fn: (*call).mergeRequestChanges},
	"listMergeRequestDiffs":         {need: needRead, fn: (*call).listMergeRequestDiffs},
	"getApprovals":                  {need: needRead, fn: (*call).getApprovals},
	"approveMergeRequest":           {need: needWrite, fn: (*call).approveMergeRequest},
	"unapproveMergeRequest":         {need: needWrite, fn: (*call).unapproveMergeRequest},

	"listIssueNotes":         {need: needRead, fn: notesOf("Issue", (*call).listNotes)},
	"createIssueNote":        {need: needWrite, fn: notesOf("Issue", (*call).createNote)},
	"getIssueNote":           {need: needRead, fn: notesOf("Issue", (*call).getNote)},
	"updateIssueNote":        {need: needWrite, fn: notesOf("Issue", (*call).updateNote)},
	"deleteIssueNote":        {need: needWrite, fn: notesOf("Issue", (*call).deleteNote)},
	"listMergeRequestNotes":  {need: needRead, fn: notesOf("MergeRequest", (*call).listNotes)},
	"createMergeRequestNote": {need: needWrite, fn: notesOf("MergeRequest", (*call).createNote)},
	"getMergeRequestNote":    {need: needRead, fn: notesOf("MergeRequest", (*call).getNote)},
	"updateMergeRequestNote": {need: needWrite, fn: notesOf("MergeRequest", (*call).updateNote)},
	"deleteMergeRequestNote": {need: needWrite, fn: notesOf("MergeRequest", (*call).deleteNote)},

	"listLabels":  {need: needRead, fn: (*call).listLabels},
	"createLabel": {need: needWrite, fn: (*call).createLabel},
	"getLabel":    {need: needRead, fn: (*call).getLabel},
	"updateLabel": {need: needWrite, fn: (*call).updateLabel},
	"deleteLabel": {need: needWrite, fn: (*call).deleteLabel},

	"updateLabelInBody": {need: needWrite, fn: labelInBody((*call).updateLabel)},
	"deleteLabelInBody": {need: needWrite, fn: labelInBody((*call).deleteLabel)},

	"listMilestones":         {need: needRead, fn: (*call).listMilestones},
	"createMilestone":        {need: needWrite, fn: (*call).createMilestone},
	"getMilestone":           {need: needRead, fn: (*call).getMilestone},
	"updateMilestone":        {need: needWrite, fn: (*call).updateMilestone},
	"deleteMilestone":        {need: needWrite, fn: (*call).deleteMilestone},
	"milestoneIssues":        {need: needRead, fn: (*call).milestoneIssues},
	"milestoneMergeRequests": {need: needRead, fn: (*call).milestoneMergeRequests},

	// A hook's URL is resolved, when its check needs it, before the state
	// is locked (lookupHookHost).
	"listHooks":  {need: needRead, fn: (*call).listHooks},
	"addHook":    {need: needWrite, prep: (*Server).prepareHookURL, fn: (*call).addHook},
	"getHook":    {need: needRead, fn: (*call).getHook},
	"editHook":   {need: needWrite, prep: (*Server).prepareHookURL, fn: (*call).editHook},
	"deleteHook": {need: needWrite, fn: (*call).deleteHook},

	"getSettings":    {need: needSignedRead, fn: (*call).getSettings},
	"updateSettings": {need: needWrite, fn: (*call).updateSettings},

	"listPipelines":         {need: needRead, fn: (*call).listPipelines},
	"getPipeline":           {need: needRead, fn: (*call).getPipeline},
	"createPipeline":        {need: needWrite, fn: (*call).createPipeline},
	"cancelPipeline":        {need: needWrite, fn: (*call).cancelPipeline},
	"retryPipeline":         {need: needWrite, fn: (*call).retryPipeline},
	"deletePipeline":        {need: needWrite, fn: (*call).deletePipeline},
	"listPipelineVariables": {need: needRead, fn: (*call).listPipelineVariables},

	"listVariables":  {need: needRead, fn: (*call).listVariables},
	"getVariable":    {need: needRead, fn: (*call).getVariable},
	"createVariable": {need: needWrite, fn: (*call).createVariable},
	"updateVariable": {need: needWrite, fn: (*call).updateVariable},
	"deleteVariable": {need: needWrite, fn: (*call).deleteVariable},

	"listTriggers":  {need: needRead, fn: (*call).listTriggers},
	"getTrigger":    {need: needRead, fn: (*call).getTrigger},
	"createTrigger": {need: needWrite, fn: (*call).createTrigger},
	"updateTrigger": {need: needWrite, fn: (*call).updateTrigger},
	"deleteTrigger": {need: needWrite, fn: (*call).deleteTrigger},
	// The trigger token authorizes the pipeline: no credentials needed.
	"triggerPipeline": {need: needRead, fn: (*call).triggerPipeline},

	"listSchedules":    {need: needRead, fn: (*call).listSchedules},
	"getSchedule":      {need: needRead, fn: (*call).getSchedule},
	"createSchedule":   {need: needWrite, fn: (*call).createSchedule},
	"updateSchedule":   {need: needWrite, fn: (*call).updateSchedule},
	"deleteSchedule":   {need: needWrite, fn: (*call).deleteSchedule},
	"playSchedule":     {need: needWrite, fn: (*call).playSchedule},
	"listPipelineJobs": {need: needRead, fn: (*call).listPipelineJobs},
	"listProjectJobs":  {need: needRead, fn: (*call).listProjectJobs},
	"getJob":           {need: needRead, fn: (*call).getJob},
	"jobTrace":         {need: needRead, fn: (*call).jobTrace},
	"cancelJob":        {need: needWrite, fn: (*call).cancelJob},
	"retryJob":         {need: needWrite, fn: (*call).retryJob},

	"getFile":               {need: needRepoRead, fn: (*call).getFile},
	"getRawFile":            {need: needRepoRead, fn: (*call).getRawFile},
	"createFile":            {need: needWrite, prep: prepFile, fn: (*call).createFile},
	"updateFile":            {need: needWrite, prep: prepFile, fn: (*call).updateFile},
	"deleteFile":            {need: needWrite, fn: (*call).deleteFile},
	"blame":                 {need: needRepoRead, fn: (*call).blame},
	"getRawBlob":            {need: needRepoRead, fn: (*call).getRawBlob},
	"compare":               {need: needRepoRead, fn: (*call).compare},
	"listTree":              {need: needRepoRead, fn: (*call).listTree},
	"listCommits":           {need: needRepoRead, fn: (*call).listCommits},
	"getCommit":             {need: needRepoRead, fn: (*call).getCommit},
	"listBranches":          {need: needRepoRead, fn: (*call).listBranches},
	"createBranch":          {need: needWrite, fn: (*call).createBranch},
	"getBranch":             {need: needRepoRead, fn: (*call).getBranch},
	"deleteBranch":          {need: needWrite, fn: (*call).deleteBranch},
	"listTags":              {need: needRepoRead, fn: (*call).listTags},
	"createTag":             {need: needWrite, fn: (*call).createTag},
	"getTag":                {need: needRepoRead, fn: (*call).getTag},
	"deleteTag":             {need: needWrite, fn: (*call).deleteTag},
	"listReleases":          {need: needRead, fn: (*call).listReleases},
	"createRelease":         {need: needWrite, fn: (*call).createRelease},
	"getRelease":            {need: needRead, fn: (*call).getRelease},
	"updateRelease":         {need: needWrite, fn: (*call).updateRelease},
	"deleteRelease":         {need: needWrite, fn: (*call).deleteRelease},
	"listProtectedBranches": {need: needRead, fn: (*call).listProtectedBranches},
	"protectBranch":         {need: needWrite, fn: (*call).protectBranch},
	"getProtectedBranch":    {need: needRead, fn: (*call).getProtectedBranch},
	"unprotectBranch":       {need: needWrite, fn: (*call).unprotectBranch},
}

// prepFile reads a file's content before the state is locked
// (prepareFile).
func prepFile(_ *Server, p *params) { prepareFile(p) }

// notesOf is a notes handler for the notes of issues or of merge
// requests (kind "Issue" or "MergeRequest").
func notesOf(kind string, fn func(c *call, kind string) fakekit.Answer) func(c *call) fakekit.Answer {
	return func(c *call) fakekit.Answer { return fn(c, kind) }
}

// routeTable is every endpoint the fake serves, registered from the
// endpoint table, built once and shared by all instances. Its patterns are
// what InjectFault and RequestsTo take.
var routeTable = sync.OnceValue(func() *fakekit.Routes[*Server] {
	rt := fakekit.NewRoutes[*Server]()
	err := fakekit.RegisterTable(apitable.Sourcehost(), handlers, func(e apitable.Endpoint, pattern string, h route) {
		if h.need == needWrite && strings.HasPrefix(e.Path, "/projects/{id}/") && !servesArchived[e.Handler] {
			h.fn = refuseArchived(h.fn) // an archived project's resources are read-only
		}
		rt.Handle(pattern, func(s *Server, w http.ResponseWriter, r *http.Request) {
			var prep func(*params)
			if h.prep != nil {
				prep = func(p *params) { h.prep(s, p) }
			}
			s.serve(w, r, h.need, prep, h.fn)
		})
	})
	if err == nil {
		err = registerOAuth(rt)
	}
	if err != nil {
		panic(fmt.Sprintf("sourcehostfake: %v", err)) // the tables and the handlers are compiled in; every test catches this
	}
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
