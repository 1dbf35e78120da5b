package rest_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/apitwin/apitwin/internal/rest"
)

func TestParseLink(t *testing.T) {
	t.Parallel()
	h := `<https://h/api/v4/projects?page=2&per_page=20>; rel="next", <https://h/api/v4/projects?page=1>; rel="first prev",` +
		` <https://h/api/v4/projects?page=5>; rel=last, garbage, <unterminated; rel="x"`
	want := map[string]string{
		"next":  "https://h/api/v4/projects?page=2&per_page=20",
		"first": "https://h/api/v4/projects?page=1",
		"prev":  "https://h/api/v4/projects?page=1",
		"last":  "https://h/api/v4/projects?page=5",
	}
	if diff := cmp.Diff(want, rest.ParseLink(h)); diff != "" {
		t.Fatalf("(-want +got)\n%s", diff)
	}
}

func FuzzParseLink(f *testing.F) {
	f.Add(`<https://h/?page=2>; rel="next"`)
	f.Add("<")
	f.Fuzz(func(t *testing.T, link string) {
		for rel, u := range rest.ParseLink(link) {
			if rel == "" || u == "" {
				t.Fatalf("empty relation or URL from %q", link)
			}
		}
	})
}
