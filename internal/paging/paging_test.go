package paging_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/apitwin/apitwin/internal/paging"
)

// pages serves 1..n in pages of size, recording which pages were fetched.
func pages(n, size int, fetched *[]int, failAt int) paging.Fetch[int, int] {
	return func(page int) ([]int, int, bool, error) {
		*fetched = append(*fetched, page)
		if page == failAt {
			return nil, 0, false, errors.New("boom")
		}
		var items []int
		for i := (page-1)*size + 1; i <= min(page*size, n); i++ {
			items = append(items, i)
		}
		return items, page + 1, page*size < n, nil
	}
}

func TestSeqAllPages(t *testing.T) {
	t.Parallel()
	var fetched []int
	var got []int
	for v, err := range paging.Seq(1, pages(7, 3, &fetched, 0)) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, v)
	}
	if want := []int{1, 2, 3, 4, 5, 6, 7}; !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	if want := []int{1, 2, 3}; !slices.Equal(fetched, want) {
		t.Fatalf("fetched %v, want %v", fetched, want)
	}
}

func TestSeqBreakFetchesNoMore(t *testing.T) {
	t.Parallel()
	var fetched []int
	for v, err := range paging.Seq(1, pages(100, 10, &fetched, 0)) {
		if err != nil {
			t.Fatal(err)
		}
		if v == 12 {
			break
		}
	}
	if want := []int{1, 2}; !slices.Equal(fetched, want) {
		t.Fatalf("fetched %v, want %v (lazy)", fetched, want)
	}
}

func TestSeqStopsAtError(t *testing.T) {
	t.Parallel()
	var fetched []int
	var got []int
	var errs int
	for v, err := range paging.Seq(1, pages(100, 2, &fetched, 3)) {
		if err != nil {
			errs++
			continue
		}
		got = append(got, v)
	}
	if errs != 1 || !slices.Equal(got, []int{1, 2, 3, 4}) {
		t.Fatalf("got %v with %d errors", got, errs)
	}
}

func TestSeqEmpty(t *testing.T) {
	t.Parallel()
	var fetched []int
	for range paging.Seq(1, pages(0, 5, &fetched, 0)) {
		t.Fatal("yielded from an empty collection")
	}
}
