package orch

import (
	"bytes"
	"context"
	"iter"

	"github.com/apitwin/apitwin/apicall"
)

// ListOptions page through a list: PageSize items per page (0: the server's
// default) starting at PageToken (nil: the first page).
type ListOptions struct {
	PageSize  int32
	PageToken []byte
}

// Page is one page of a list and the token of the next (nil on the last).
type Page[T any] struct {
	Items         []T
	NextPageToken []byte
	// RateLimit is what this page's answer said of the rate limit.
	RateLimit RateLimit
}

// pageCall runs a page's call with a capture of its own (for the page's
// rate limit), passing what it captured on to the caller's capture, if
// any.
func pageCall[T any](ctx context.Context, call func(context.Context) (*Page[T], error)) (*Page[T], error) {
	var info apicall.Info
	p, err := call(apicall.Capture(ctx, &info))
	if outer := apicall.From(ctx); outer != nil {
		*outer = info
	}
	if p != nil {
		p.RateLimit = info.RateLimit
	}
	return p, err
}

// all iterates over every item of every page, fetching lazily: one page in
// memory at a time. It copies opts, stops at the first error (yielded once)
// and when the caller breaks.
func all[T any](ctx context.Context, opts *ListOptions, fetch func(context.Context, *ListOptions) (*Page[T], error)) iter.Seq2[T, error] {
	var o ListOptions
	if opts != nil {
		o = *opts
		o.PageToken = bytes.Clone(opts.PageToken)
	}
	return func(yield func(T, error) bool) {
		page := o
		for {
			p, err := fetch(ctx, &page)
			if err != nil {
				var zero T
				yield(zero, err)
				return
			}
			for _, item := range p.Items {
				if !yield(item, nil) {
					return
				}
			}
			if len(p.NextPageToken) == 0 || bytes.Equal(p.NextPageToken, page.PageToken) {
				return
			}
			page.PageToken = p.NextPageToken
		}
	}
}

func listOpts(opts *ListOptions) ListOptions {
	if opts == nil {
		return ListOptions{}
	}
	return *opts
}
