package sourcehost_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/apitwin/apitwin/sourcehost"
)

func TestFileBlame(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	p := tg.project(t, sourcehost.Private)
	main := p.DefaultBranch
	if _, err := tg.c.CreateFile(ctx, pid(p), "poem.txt", &sourcehost.CreateFileRequest{Branch: main, Content: "one\ntwo\nthree\n", CommitMessage: "First draft"}); err != nil {
		t.Fatal(err)
	}
	if _, err := tg.c.UpdateFile(ctx, pid(p), "poem.txt", &sourcehost.UpdateFileRequest{Branch: main, Content: "one\nTWO\nthree\nfour", CommitMessage: "Second draft"}); err != nil {
		t.Fatal(err)
	}
	ranges, err := tg.c.GetFileBlame(ctx, pid(p), "poem.txt", main)
	if err != nil {
		t.Fatal(err)
	}
	type run struct {
		title string
		lines []string
	}
	var got []run
	for _, r := range ranges {
		got = append(got, run{r.Commit.Title, r.Lines})
	}
	want := []run{{"First draft", []string{"one"}}, {"Second draft", []string{"TWO"}}, {"First draft", []string{"three"}}, {"Second draft", []string{"four"}}}
	if !slices.EqualFunc(got, want, func(a, b run) bool { return a.title == b.title && slices.Equal(a.lines, b.lines) }) {
		t.Fatalf("blame %+v, want %+v", got, want)
	}
	if _, err := tg.c.GetFileBlame(ctx, pid(p), "nope.txt", main); !errors.Is(err, sourcehost.ErrNotFound) {
		t.Fatalf("a missing file: %v", err)
	}
}
