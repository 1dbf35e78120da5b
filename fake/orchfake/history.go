package orchfake

import (
	"context"

	"github.com/apitwin/apitwin/orch/orchpb"
)

// History page sizes.
const (
	defaultHistoryPage = 1000
	maxHistoryPage     = 1000
)

func (s *Server) getHistory(ctx context.Context, req *orchpb.GetWorkflowExecutionHistoryRequest) (*orchpb.GetWorkflowExecutionHistoryResponse, error) {
	size, err := pageSize(req.GetMaximumPageSize(), defaultHistoryPage, maxHistoryPage, "maximum_page_size")
	if err != nil {
		return nil, err
	}
	filter := req.GetHistoryEventFilterType()
	if _, ok := orchpb.HistoryEventFilterType_name[int32(filter)]; !ok {
		return nil, badField("history_event_filter_type", "unknown filter %d", filter)
	}
	closeOnly := filter == orchpb.HistoryEventFilterType_CLOSE_EVENT
	we := req.GetExecution()
	next := int64(1)
	if tok := req.GetNextPageToken(); len(tok) > 0 {
		run, n, err := parseHistoryToken(tok)
		if err != nil {
			return nil, err
		}
		if r := trimRunID(we.GetRunId()); r != "" && r != run {
			return nil, badField("next_page_token", "the token belongs to another run")
		}
		we = &orchpb.WorkflowExecution{WorkflowId: we.GetWorkflowId(), RunId: run}
		next = n
	}
	ctx, cancel := pollContext(ctx)
	defer cancel()
	// A long poll ends empty after MaxPollWait, as a task poll does, whether
	// or not the caller set a deadline.
	var expired <-chan struct{}
	if req.GetWaitNewEvent() {
		var stop func()
		expired, stop = s.waitCap(ctx)
		defer stop()
	}
	for {
		resp, wake, gone, runID, err := s.historyOrWait(req.GetNamespace(), we, next, size, closeOnly, req.GetWaitNewEvent())
		if resp != nil || err != nil {
			return resp, err
		}
		select {
		case <-wake:
			we = &orchpb.WorkflowExecution{WorkflowId: we.GetWorkflowId(), RunId: runID}
		case <-ctx.Done(): // the caller's deadline: no events, the same token
			return &orchpb.GetWorkflowExecutionHistoryResponse{NextPageToken: historyToken(runID, next)}, nil
		case <-expired:
			return &orchpb.GetWorkflowExecutionHistoryResponse{NextPageToken: historyToken(runID, next)}, nil
		case <-s.done:
			return &orchpb.GetWorkflowExecutionHistoryResponse{NextPageToken: historyToken(runID, next)}, nil
		case <-gone: // Reset: the next call finds no such run
			return &orchpb.GetWorkflowExecutionHistoryResponse{NextPageToken: historyToken(runID, next)}, nil
		}
	}
}

// historyOrWait answers a history page, or for a long poll with nothing
// new, what to wait on: the run's wake channel and the state's end.
func (s *Server) historyOrWait(nsName string, we *orchpb.WorkflowExecution, next int64, size int, closeOnly, wait bool) (resp *orchpb.GetWorkflowExecutionHistoryResponse, wake <-chan struct{}, gone chan struct{}, runID string, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, err := s.lookup(nsName, we, "execution")
	if err != nil {
		return nil, nil, nil, "", err
	}
	if resp, ready := historyPage(e, next, size, closeOnly, wait); ready {
		return resp, nil, nil, "", nil
	}
	return nil, e.wake, s.st.gone, e.runID, nil
}

// historyPage answers a history request from position next, or reports
// that a long poll must wait. s.mu must be held.
func historyPage(e *execution, next int64, size int, closeOnly, wait bool) (*orchpb.GetWorkflowExecutionHistoryResponse, bool) {
	resp := &orchpb.GetWorkflowExecutionHistoryResponse{}
	if closeOnly {
		if e.open() {
			if wait {
				return nil, false
			}
			return resp, true
		}
		resp.History = cloneEvents(e.history[len(e.history)-1:])
		return resp, true
	}
	total := int64(len(e.history))
	if next > total+1 {
		next = total + 1
	}
	if next > total {
		if e.open() {
			if wait {
				return nil, false
			}
		}
		return resp, true
	}
	end := min(next-1+int64(size), total)
	resp.History = cloneEvents(e.history[next-1 : end])
	if end < total || (wait && e.open()) {
		resp.NextPageToken = historyToken(e.runID, end+1)
	}
	return resp, true
}
