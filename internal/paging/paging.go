// Package paging turns "fetch one page" functions into lazy iterators, for the
// AllX methods of every client, over REST page numbers and gRPC page tokens
// alike.
package paging

import "iter"

// Fetch reads the page at cursor. It returns the page's items, the cursor of
// the next page, and whether there is a next page.
type Fetch[T, C any] func(cursor C) (items []T, next C, more bool, err error)

// Seq returns an iterator over every item of every page, starting at start.
// It fetches a page only when the previous one is used up, so it holds one
// page in memory. It stops after yielding an error (with the zero T), when
// the consumer breaks, and after the last page.
func Seq[T, C any](start C, fetch Fetch[T, C]) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		cursor := start
		for {
			items, next, more, err := fetch(cursor)
			if err != nil {
				var zero T
				yield(zero, err)
				return
			}
			for i, it := range items {
				if !yield(it, nil) {
					return
				}
				var zero T
				items[i] = zero // let the consumer's items go as it moves on
			}
			if !more {
				return
			}
			cursor = next
		}
	}
}
