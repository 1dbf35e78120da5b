package orchfake

import (
	"context"
	"strconv"

	"github.com/apitwin/apitwin/internal/orchwire"
	"github.com/apitwin/apitwin/orch/orchpb"
	"google.golang.org/protobuf/types/known/durationpb"
)

// pendingQuery is a QueryWorkflow call waiting for a worker's answer.
type pendingQuery struct {
	seq    int64
	e      *execution
	query  *orchpb.WorkflowQuery
	answer chan queryAnswer // buffered 1
}

type queryAnswer struct {
	result  *orchpb.Payloads
	failure *orchpb.Failure
}

// queryTask is a workflow task that carries only a query: the worker gets
// the history and the query, and answers in query_results (or
// query_failures) under the query's id; it writes no history event.
type queryTask struct {
	pq      *pendingQuery
	started bool
}

func (t *queryTask) live() bool {
	return !t.started && t.pq.e.eng.queries[t.pq.seq] == t.pq
}

func queryID(seq int64) string { return "q-" + strconv.FormatInt(seq, 10) }

func (s *Server) queryWorkflow(ctx context.Context, req *orchpb.QueryWorkflowRequest) (*orchpb.QueryWorkflowResponse, error) {
	var v violations
	checkName(&v, "query.query_type", req.GetQuery().GetQueryType(), true)
	if _, ok := orchpb.QueryRejectCondition_name[int32(req.GetQueryRejectCondition())]; !ok {
		v.add("query_reject_condition", "unknown condition %d", req.GetQueryRejectCondition())
	}
	if err := v.err(); err != nil {
		return nil, err
	}
	pq, rejected, gone, err := s.sendQuery(req)
	if rejected != nil || err != nil {
		return rejected, err
	}
	expired, stop := s.waitCap(ctx)
	defer stop()
	select {
	case a := <-pq.answer:
		return queryAnswered(a)
	case <-ctx.Done():
	case <-expired: // no worker answered in MaxPollWait
	case <-s.done:
	case <-gone:
	}
	s.dropQuery(pq)
	select {
	case a := <-pq.answer: // answered as the wait ended
		return queryAnswered(a)
	default:
	}
	if s.isClosed() {
		return nil, errorf(orchwire.Unavailable, "the fake is shut down")
	}
	return nil, errorf(orchwire.DeadlineExceeded, "context deadline exceeded: no worker answered the query")
}

// sendQuery queues a query task for the run, or answers the rejection its
// condition asks for.
func (s *Server) sendQuery(req *orchpb.QueryWorkflowRequest) (*pendingQuery, *orchpb.QueryWorkflowResponse, chan struct{}, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, err := s.lookup(req.GetNamespace(), req.GetExecution(), "execution")
	if err != nil {
		return nil, nil, nil, err
	}
	switch req.GetQueryRejectCondition() {
	case orchpb.QueryRejectCondition_NOT_OPEN:
		if !e.open() {
			return nil, &orchpb.QueryWorkflowResponse{QueryRejected: &orchpb.QueryRejected{Status: e.status}}, nil, nil
		}
	case orchpb.QueryRejectCondition_NOT_COMPLETED_CLEANLY:
		if !e.open() && e.status != orchpb.WorkflowExecutionStatus_COMPLETED {
			return nil, &orchpb.QueryWorkflowResponse{QueryRejected: &orchpb.QueryRejected{Status: e.status}}, nil, nil
		}
	}
	s.st.querySeq++
	pq := &pendingQuery{seq: s.st.querySeq, e: e, query: req.GetQuery(), answer: make(chan queryAnswer, 1)}
	if e.eng.queries == nil {
		e.eng.queries = map[int64]*pendingQuery{}
	}
	e.eng.queries[pq.seq] = pq
	e.ns.queue(e.queue).push(sideWorkflow, &queryTask{pq: pq})
	return pq, nil, s.st.gone, nil
}

// dropQuery forgets a query nobody waits for any more.
func (s *Server) dropQuery(pq *pendingQuery) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(pq.e.eng.queries, pq.seq)
}

func queryAnswered(a queryAnswer) (*orchpb.QueryWorkflowResponse, error) {
	if a.failure != nil {
		return nil, errorf(orchwire.InvalidArgument, "query failed: %s", a.failure.GetMessage())
	}
	return &orchpb.QueryWorkflowResponse{QueryResult: a.result}, nil
}

// startQueryTask answers a poll with a query task. s.mu must be held.
func (s *Server) startQueryTask(t *queryTask) *orchpb.PollWorkflowTaskQueueResponse {
	t.started = true
	e := t.pq.e
	id := queryID(t.pq.seq)
	return &orchpb.PollWorkflowTaskQueueResponse{
		TaskToken:                  encodeTaskToken(taskToken{kind: tokenQuery, namespace: e.ns.info.Name, workflowID: e.id, runID: e.runID, scheduledID: t.pq.seq, attempt: 1}),
		WorkflowExecution:          &orchpb.WorkflowExecution{WorkflowId: e.id, RunId: e.runID},
		WorkflowType:               &orchpb.WorkflowType{Name: e.typ},
		PreviousStartedEventId:     e.eng.lastStartedID,
		Attempt:                    1,
		History:                    cloneEvents(e.history),
		Query:                      t.pq.query,
		Queries:                    map[string]*orchpb.WorkflowQuery{id: t.pq.query},
		WorkflowExecutionTaskQueue: &orchpb.TaskQueue{Name: e.queue, Kind: orchpb.TaskQueueKind_NORMAL},
		WorkflowTaskTimeout:        durationpb.New(e.taskTimeout),
	}
}

// answerQueryTask takes a worker's answer to a query task. s.mu must be held.
func (s *Server) answerQueryTask(req *orchpb.RespondWorkflowTaskCompletedRequest, tt taskToken) error {
	if len(req.GetCommands()) > 0 {
		return badField("commands", "a query task takes no commands")
	}
	e, err := s.lookup(tt.namespace, &orchpb.WorkflowExecution{WorkflowId: tt.workflowID, RunId: tt.runID}, "task_token")
	if err != nil {
		return err
	}
	id := queryID(tt.scheduledID)
	if e.eng.queries[tt.scheduledID] == nil {
		return errorf(orchwire.NotFound, "query %s not found: its caller gave up or it was answered", id)
	}
	_, ok1 := req.GetQueryResults()[id]
	_, ok2 := req.GetQueryFailures()[id]
	if !ok1 && !ok2 {
		return badField("query_results", "no answer for query %s", id)
	}
	s.answerQueries(e, req.GetQueryResults(), req.GetQueryFailures())
	return nil
}

// answerQueries delivers answers to pending queries by id. s.mu must be held.
func (s *Server) answerQueries(e *execution, results map[string]*orchpb.Payloads, failures map[string]*orchpb.Failure) {
	for seq, pq := range e.eng.queries {
		id := queryID(seq)
		if r, ok := results[id]; ok {
			pq.answer <- queryAnswer{result: r}
		} else if f, ok := failures[id]; ok {
			pq.answer <- queryAnswer{failure: f}
		} else {
			continue
		}
		delete(e.eng.queries, seq)
	}
}
