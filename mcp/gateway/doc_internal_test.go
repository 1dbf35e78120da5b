package gateway

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// The table of annotations in the package doc says what tools/list says.
func TestDocTableOfAnnotations(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile(`^//\t(.+?)\s+(yes|no)\s+(yes|no)\s+(yes|no)\s+(yes|no)$`)
	yes := func(s string) bool { return s == "yes" }
	seen := map[string]bool{}
	for _, line := range strings.Split(string(b), "\n") {
		m := row.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		var names []string
		if m[1] == "every list_*, get_*, search*" {
			for _, tl := range toolList() {
				if tl.read() {
					names = append(names, tl.name)
				}
			}
		} else {
			names = strings.Split(m[1], ", ")
		}
		for _, name := range names {
			tl := toolsByName()[name]
			if tl == nil {
				t.Errorf("doc.go names %q, which is no tool", name)
				continue
			}
			seen[name] = true
			a := tl.annotations()
			if a.ReadOnlyHint != yes(m[2]) || *a.DestructiveHint != yes(m[3]) || a.IdempotentHint != yes(m[4]) || *a.OpenWorldHint != yes(m[5]) {
				t.Errorf("doc.go says %s is %v; tools/list says readOnly %v destructive %v idempotent %v openWorld %v",
					name, m[2:], a.ReadOnlyHint, *a.DestructiveHint, a.IdempotentHint, *a.OpenWorldHint)
			}
		}
	}
	for _, tl := range toolList() {
		if !seen[tl.name] {
			t.Errorf("doc.go's table lacks %s", tl.name)
		}
		if tl.read() && !(strings.HasPrefix(tl.name, "list_") || strings.HasPrefix(tl.name, "get_") || strings.HasPrefix(tl.name, "search")) {
			t.Errorf("read %s is not named list_*, get_* or search*, as the doc says reads are", tl.name)
		}
	}
}
