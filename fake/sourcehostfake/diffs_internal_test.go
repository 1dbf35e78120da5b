package sourcehostfake

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// applyUnified applies a diff unified wrote to a's lines, as patch would.
func applyUnified(t *testing.T, a []string, diff string) string {
	t.Helper()
	var out []string
	next := 0 // the next line of a not yet copied
	var last byte
	lines := strings.SplitAfter(diff, "\n")
	for i := 0; i < len(lines) && lines[i] != ""; i++ {
		l := lines[i]
		op := l[0]
		switch {
		case strings.HasPrefix(l, "@@ -"):
			start, _, _ := strings.Cut(strings.TrimPrefix(l, "@@ -"), " ")
			from, size, _ := strings.Cut(start, ",")
			n, _ := strconv.Atoi(from)
			if size != "0" {
				n-- // the first line of the hunk; an empty side names the line before it
			}
			out = append(out, a[next:n]...)
			next = n
		case l == "\\ No newline at end of file\n":
			if last != '-' { // the line it follows lacks its newline
				out[len(out)-1] = strings.TrimSuffix(out[len(out)-1], "\n")
			}
		case l[0] == ' ':
			if a[next] != l[1:] && a[next]+"\n" != l[1:] {
				t.Fatalf("context %q is not line %d %q", l, next, a[next])
			}
			out = append(out, a[next])
			next++
		case l[0] == '-':
			next++
		case l[0] == '+':
			out = append(out, l[1:])
		default:
			t.Fatalf("line %q", l)
		}
		last = op
	}
	return strings.Join(append(out, a[next:]...), "")
}

func TestUnifiedDiffs(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ a, b, want string }{
		{"", "hello\n", "@@ -0,0 +1 @@\n+hello\n"},
		{"b\n", "", "@@ -1 +0,0 @@\n-b\n"},
		{"1\n2\n3\n", "1\n2\n3\n", ""},
		{"x", "y", "@@ -1 +1 @@\n-x\n\\ No newline at end of file\n+y\n\\ No newline at end of file\n"},
		{"1\n2\n3\n4\n5\n6\n7\n8\n", "1\n2\n3\n4\nfour and a half\n5\n6\n7\n8\n", "@@ -2,6 +2,7 @@\n 2\n 3\n 4\n+four and a half\n 5\n 6\n 7\n"},
		// Changes more than six lines apart are two hunks.
		{"a\n1\n2\n3\n4\n5\n6\n7\nb\n", "A\n1\n2\n3\n4\n5\n6\n7\nB\n", "@@ -1,4 +1,4 @@\n-a\n+A\n 1\n 2\n 3\n@@ -6,4 +6,4 @@\n 5\n 6\n 7\n-b\n+B\n"},
	} {
		if got := newDiffer().unified(splitLines([]byte(tc.a)), splitLines([]byte(tc.b))); got != tc.want {
			t.Errorf("%q to %q:\n%s\nwant\n%s", tc.a, tc.b, got, tc.want)
		}
	}
	// Whatever the change, the diff turns a into b.
	r := rand.New(rand.NewPCG(1, 2))
	text := func() string {
		var sb strings.Builder
		for range r.IntN(30) {
			sb.WriteString(string(rune('a' + r.IntN(4))))
			sb.WriteByte('\n')
		}
		if r.IntN(4) == 0 {
			sb.WriteString("end")
		}
		return sb.String()
	}
	for range 2000 {
		a, b := text(), text()
		al := splitLines([]byte(a))
		if got := applyUnified(t, al, newDiffer().unified(al, splitLines([]byte(b)))); got != b {
			t.Fatalf("%q to %q: the diff makes %q:\n%s", a, b, got, newDiffer().unified(al, splitLines([]byte(b))))
		}
	}
}

// A file past the bounds is shown too large, without its diff; a binary
// one as git says it.
func TestFileDiffBounds(t *testing.T) {
	t.Parallel()
	big := newBlob([]byte(strings.Repeat("x", maxDiffBytes+1)))
	if d := newDiffer().fileDiff("big", nil, big); !d.TooLarge || d.Diff != "" || !d.NewFile || d.AMode != "0" {
		t.Fatalf("big %+v", d)
	}
	long := newBlob([]byte(strings.Repeat("x\n", maxDiffLines+1)))
	if d := newDiffer().fileDiff("long", newBlob([]byte("x\n")), long); !d.TooLarge || d.Diff != "" {
		t.Fatalf("long %+v", d)
	}
	if d := newDiffer().fileDiff("bin", newBlob([]byte{0, 1}), newBlob([]byte{0, 2})); d.Diff != "Binary files a/bin and b/bin differ\n" {
		t.Fatalf("binary %+v", d)
	}
	// The middle of two different files past maxDiffCells is replaced whole,
	// still a correct diff.
	var a, b strings.Builder
	for i := range 2100 {
		a.WriteString("a" + strconv.Itoa(i) + "\n")
		b.WriteString("b" + strconv.Itoa(i) + "\n")
	}
	al := splitLines([]byte(a.String()))
	if got := applyUnified(t, al, newDiffer().unified(al, splitLines([]byte(b.String())))); got != b.String() {
		t.Fatal("the replaced middle does not make b")
	}
}

// A request's work is bounded in all: past its budget, files are matched
// the cheap way, each diff still correct.
func TestDiffWorkIsBounded(t *testing.T) {
	t.Parallel()
	df := &differ{work: 10}
	a, b := splitLines([]byte("x\n1\n2\n3\ny\n")), splitLines([]byte("x\n3\n2\n1\ny\n"))
	if got := applyUnified(t, a, df.unified(a, b)); got != "x\n3\n2\n1\ny\n" || df.work != 10 {
		t.Fatalf("over budget: %q, work %d", got, df.work)
	}
	df.work = 100
	df.unified(a, b)
	if df.work != 100-16 {
		t.Fatalf("work left %d, want 84 (a 4x4 table)", df.work)
	}
}
