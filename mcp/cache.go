package mcp

import (
	"context"
	"sync"
	"time"

	"github.com/apitwin/apitwin/clock"
)

// Cache keeps encoded answers of read methods. Keys are opaque digests of
// the caller's token, the method and its params (never the token itself);
// tags name what an answer was read from, so a write can drop every answer
// it makes stale. A deployment with several replicas can share one Cache;
// the default is MemoryCache.
type Cache interface {
	Get(ctx context.Context, key string) ([]byte, bool, error)
	Set(ctx context.Context, key string, value []byte, ttl time.Duration, tags []string) error
	Invalidate(ctx context.Context, tags ...string) error
}

// MemoryCache is a Cache in this process, bounded in entries; when full it
// first drops expired answers, then the ones closest to expiry.
type MemoryCache struct {
	clk clock.Clock
	max int

	mu      sync.Mutex
	entries map[string]*cacheEntry
	byTag   map[string]map[string]struct{}
}

type cacheEntry struct {
	value   []byte
	expires time.Time
	tags    []string
}

// NewMemoryCache returns a cache on clk (nil for the real clock) holding at
// most maxEntries answers.
func NewMemoryCache(clk clock.Clock, maxEntries int) *MemoryCache {
	if clk == nil {
		clk = clock.Real()
	}
	return &MemoryCache{clk: clk, max: maxEntries, entries: make(map[string]*cacheEntry), byTag: make(map[string]map[string]struct{})}
}

// Get returns a fresh answer stored under key.
func (c *MemoryCache) Get(_ context.Context, key string) ([]byte, bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.entries[key]
	if e == nil {
		return nil, false, nil
	}
	if !c.clk.Now().Before(e.expires) {
		c.remove(key, e)
		return nil, false, nil
	}
	return e.value, true, nil
}

// Set stores value under key for ttl, filed under tags.
func (c *MemoryCache) Set(_ context.Context, key string, value []byte, ttl time.Duration, tags []string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.clk.Now()
	if old := c.entries[key]; old != nil {
		c.remove(key, old)
	}
	if len(c.entries) >= c.max {
		c.evict(now)
	}
	e := &cacheEntry{value: value, expires: now.Add(ttl), tags: tags}
	c.entries[key] = e
	for _, t := range tags {
		keys := c.byTag[t]
		if keys == nil {
			keys = make(map[string]struct{})
			c.byTag[t] = keys
		}
		keys[key] = struct{}{}
	}
	return nil
}

// Invalidate drops every answer filed under any of tags.
func (c *MemoryCache) Invalidate(_ context.Context, tags ...string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, t := range tags {
		for key := range c.byTag[t] {
			if e := c.entries[key]; e != nil {
				c.remove(key, e)
			}
		}
	}
	return nil
}

// Len is the number of answers held, fresh or not.
func (c *MemoryCache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}

func (c *MemoryCache) remove(key string, e *cacheEntry) {
	delete(c.entries, key)
	for _, t := range e.tags {
		if keys := c.byTag[t]; keys != nil {
			delete(keys, key)
			if len(keys) == 0 {
				delete(c.byTag, t)
			}
		}
	}
}

// evict makes room for one entry: every expired one goes, and if none had
// expired, the one that would expire first.
func (c *MemoryCache) evict(now time.Time) {
	var soonest string
	var soonestAt time.Time
	for k, e := range c.entries {
		if !now.Before(e.expires) {
			c.remove(k, e)
			continue
		}
		if soonest == "" || e.expires.Before(soonestAt) {
			soonest, soonestAt = k, e.expires
		}
	}
	if len(c.entries) >= c.max && soonest != "" {
		c.remove(soonest, c.entries[soonest])
	}
}
