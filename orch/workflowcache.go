package orch

import (
	"container/list"
	"sync"
)

// runCache is a worker's sticky cache: the state of the runs whose last
// workflow task it handled, the least recently used evicted first.
type runCache struct {
	mu      sync.Mutex
	max     int
	order   *list.List               // of *keptRun, most recent first
	byRun   map[string]*list.Element // by run id
	hits    int64
	misses  int64
	evicted int64
}

// keptRun is one run's kept state and the started event of the last task
// it handled.
type keptRun struct {
	runID       string
	state       CachedRun
	lastStarted int64
}

func (k *keptRun) close() {
	if k != nil {
		k.state.Close()
	}
}

func newRunCache(size int) *runCache {
	return &runCache{max: size, order: list.New(), byRun: map[string]*list.Element{}}
}

// take removes the run's state from the cache for a task whose previous
// task started at previousStarted. State kept from another task (one that
// failed, timed out or was answered by another worker since) is closed,
// and take returns nil, as when there is none.
func (c *runCache) take(runID string, previousStarted int64) *keptRun {
	c.mu.Lock()
	el := c.byRun[runID]
	if el == nil {
		c.mu.Unlock()
		return nil
	}
	c.order.Remove(el)
	delete(c.byRun, runID)
	c.mu.Unlock()
	k := el.Value.(*keptRun)
	if k.lastStarted != previousStarted {
		k.close()
		return nil
	}
	return k
}

// put keeps k, evicting the least recently used runs over the bound.
func (c *runCache) put(k *keptRun) {
	var out []*keptRun
	c.mu.Lock()
	if el := c.byRun[k.runID]; el != nil { // cannot happen: a run's tasks come one at a time
		c.order.Remove(el)
		out = append(out, el.Value.(*keptRun))
	}
	c.byRun[k.runID] = c.order.PushFront(k)
	for c.order.Len() > c.max {
		el := c.order.Back()
		c.order.Remove(el)
		old := el.Value.(*keptRun)
		delete(c.byRun, old.runID)
		out = append(out, old)
		c.evicted++
	}
	c.mu.Unlock()
	for _, old := range out {
		old.close()
	}
}

// drop removes k, if still kept, and closes it.
func (c *runCache) drop(k *keptRun) {
	c.mu.Lock()
	el := c.byRun[k.runID]
	if el != nil && el.Value.(*keptRun) == k {
		c.order.Remove(el)
		delete(c.byRun, k.runID)
	} else {
		k = nil // evicted (closed) or taken already
	}
	c.mu.Unlock()
	k.close()
}

func (c *runCache) hit()  { c.mu.Lock(); c.hits++; c.mu.Unlock() }
func (c *runCache) miss() { c.mu.Lock(); c.misses++; c.mu.Unlock() }

// purge closes every kept state.
func (c *runCache) purge() {
	c.mu.Lock()
	var out []*keptRun
	for el := c.order.Front(); el != nil; el = el.Next() {
		out = append(out, el.Value.(*keptRun))
	}
	c.order.Init()
	clear(c.byRun)
	c.mu.Unlock()
	for _, k := range out {
		k.close()
	}
}

// WorkflowCacheStats are the counts of a worker's workflow cache.
type WorkflowCacheStats struct {
	// Size is the runs kept now, at most WorkerOptions.WorkflowCacheSize.
	Size int
	// Hits counts tasks handed to a kept run (its new events only);
	// Misses tasks that started from the whole history (the first task
	// of a run on this worker, or one whose state was evicted, dropped
	// or never kept); Evicted the runs the size bound pushed out.
	Hits, Misses, Evicted int64
}

// WorkflowCacheStats tells how the worker's workflow cache fared (all
// zero when the cache is off).
func (w *Worker) WorkflowCacheStats() WorkflowCacheStats {
	if w.cache == nil {
		return WorkflowCacheStats{}
	}
	c := w.cache
	c.mu.Lock()
	defer c.mu.Unlock()
	return WorkflowCacheStats{Size: c.order.Len(), Hits: c.hits, Misses: c.misses, Evicted: c.evicted}
}

// PurgeWorkflowCache drops every run the worker keeps (as Temporal's
// PurgeStickyWorkflowCache does): their next tasks start from the whole
// history, as after a restart. For tests, and to free memory.
func (w *Worker) PurgeWorkflowCache() {
	if w.cache != nil {
		w.cache.purge()
	}
}
