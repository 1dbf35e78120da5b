package sourcehostfake

import (
	"bytes"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// Bounds of a file's diff, as the real service bounds what it shows: a
// file whose old or new content is larger than maxDiffBytes (the real
// service's default max_patch_bytes), or longer than maxDiffLines lines,
// is shown without its diff, "too_large"; a diff of more than
// maxDiffFiles files shows the first of them and says "overflow".
const (
	maxDiffBytes = 200 << 10
	maxDiffLines = 5_000
	maxDiffFiles = 1_000
	// maxDiffCells bounds the table the line matcher fills between a
	// file's first and last changed lines (4 bytes a cell), and
	// maxDiffWork the cells one request fills in all (its files, or a
	// blame's commits); past either, the changed middle is shown as
	// removed then added whole (still a correct diff, not the shortest).
	maxDiffCells = 1 << 20
	maxDiffWork  = 16 << 20
	// diffContext is the lines of context around each change.
	diffContext = 3
)

// diffJSON is one file of a diff, as the real service's Diff entity.
type diffJSON struct {
	Diff          string `json:"diff"`
	Collapsed     bool   `json:"collapsed"`
	TooLarge      bool   `json:"too_large"`
	NewPath       string `json:"new_path"`
	OldPath       string `json:"old_path"`
	AMode         string `json:"a_mode"`
	BMode         string `json:"b_mode"`
	NewFile       bool   `json:"new_file"`
	RenamedFile   bool   `json:"renamed_file"`
	DeletedFile   bool   `json:"deleted_file"`
	GeneratedFile bool   `json:"generated_file"`
}

// diffTrees is what changes from one snapshot of files to another (from
// nil: everything is new), by path; overflow reports files left out past
// maxDiffFiles.
func diffTrees(from, to *commit) (_ []diffJSON, overflow bool) {
	d := newDiffer()
	var old, cur map[string]*blob
	if from != nil {
		old = from.files
	}
	if to != nil {
		cur = to.files
	}
	paths := map[string]bool{}
	for p, b := range cur {
		if o := old[p]; o == nil || o.sha != b.sha {
			paths[p] = true
		}
	}
	for p := range old {
		if cur[p] == nil {
			paths[p] = true
		}
	}
	out := []diffJSON{}
	for _, p := range slices.Sorted(maps.Keys(paths)) {
		if len(out) == maxDiffFiles {
			return out, true
		}
		out = append(out, d.fileDiff(p, old[p], cur[p]))
	}
	return out, false
}

// fileDiff is one file's change from a to b (either nil: created or
// deleted): its unified diff without the file header lines, as the real
// service writes it.
func (df *differ) fileDiff(path string, a, b *blob) diffJSON {
	d := diffJSON{NewPath: path, OldPath: path, AMode: "100644", BMode: "100644", NewFile: a == nil, DeletedFile: b == nil}
	var ad, bd []byte
	if a != nil {
		ad = a.data
	} else {
		d.AMode = "0"
	}
	if b != nil {
		bd = b.data
	} else {
		d.BMode = "0"
	}
	switch {
	case len(ad) > maxDiffBytes || len(bd) > maxDiffBytes:
		d.TooLarge, d.Collapsed = true, true
		return d
	case bytes.IndexByte(ad, 0) >= 0 || bytes.IndexByte(bd, 0) >= 0:
		d.Diff = "Binary files a/" + path + " and b/" + path + " differ\n"
		return d
	}
	al, bl := splitLines(ad), splitLines(bd)
	if len(al) > maxDiffLines || len(bl) > maxDiffLines {
		d.TooLarge, d.Collapsed = true, true
		return d
	}
	d.Diff = df.unified(al, bl)
	return d
}

// splitLines splits text into lines, each with its "\n" (the last may
// have none).
func splitLines(b []byte) []string {
	if len(b) == 0 {
		return nil
	}
	return strings.SplitAfter(string(b), "\n")[:bytes.Count(b, []byte("\n"))+boolInt(b[len(b)-1] != '\n')]
}

func boolInt(v bool) int {
	if v {
		return 1
	}
	return 0
}

// edit is one line of a diff: ' ' kept, '-' removed, '+' added.
type edit struct {
	op   byte
	line string
}

// differ matches lines within a request's budget of work.
type differ struct{ work int } // cells it may still fill

func newDiffer() *differ { return &differ{work: maxDiffWork} }

// lineEdits turns a into b, line by line: the common head and tail kept,
// and the middle matched by longest common subsequence when its table
// fits maxDiffCells and the work left.
func (df *differ) lineEdits(a, b []string) []edit {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	out := make([]edit, 0, len(a)+len(b))
	for _, l := range a[:pre] {
		out = append(out, edit{' ', l})
	}
	ma, mb := a[pre:len(a)-suf], b[pre:len(b)-suf]
	if cells := (len(ma) + 1) * (len(mb) + 1); cells <= maxDiffCells && cells <= df.work {
		df.work -= cells
		out = append(out, lcsEdits(ma, mb)...)
	} else {
		for _, l := range ma {
			out = append(out, edit{'-', l})
		}
		for _, l := range mb {
			out = append(out, edit{'+', l})
		}
	}
	for _, l := range a[len(a)-suf:] {
		out = append(out, edit{' ', l})
	}
	return out
}

// lcsEdits matches a and b by their longest common subsequence; removals
// come before additions where both are possible, as git writes them.
func lcsEdits(a, b []string) []edit {
	n, m := len(a), len(b)
	// t[i*(m+1)+j] is the LCS of a[i:] and b[j:].
	t := make([]int32, (n+1)*(m+1))
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				t[i*(m+1)+j] = t[(i+1)*(m+1)+j+1] + 1
			} else {
				t[i*(m+1)+j] = max(t[(i+1)*(m+1)+j], t[i*(m+1)+j+1])
			}
		}
	}
	var out []edit
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && a[i] == b[j]:
			out = append(out, edit{' ', a[i]})
			i, j = i+1, j+1
		case i < n && (j == m || t[(i+1)*(m+1)+j] >= t[i*(m+1)+j+1]):
			out = append(out, edit{'-', a[i]})
			i++
		default:
			out = append(out, edit{'+', b[j]})
			j++
		}
	}
	return out
}

// unified writes the hunks of a's change into b, with diffContext lines of
// context, "@@ -l,s +l,s @@" headers and git's marker of a last line
// without its newline.
func (df *differ) unified(a, b []string) string {
	edits := df.lineEdits(a, b)
	var sb strings.Builder
	for start := 0; start < len(edits); {
		// Find the next change, and the hunk around it: changes closer than
		// twice the context join one hunk.
		first := start
		for first < len(edits) && edits[first].op == ' ' {
			first++
		}
		if first == len(edits) {
			break
		}
		from := max(first-diffContext, start)
		end := first
		for k := first; k < len(edits); k++ {
			if edits[k].op != ' ' {
				end = k + 1
			} else if k-end >= 2*diffContext {
				break
			}
		}
		to := min(end+diffContext, len(edits))
		// The hunk's line numbers: lines of a and b before it.
		aLine, bLine := 0, 0
		for _, e := range edits[:from] {
			aLine += boolInt(e.op != '+')
			bLine += boolInt(e.op != '-')
		}
		aLen, bLen := 0, 0
		for _, e := range edits[from:to] {
			aLen += boolInt(e.op != '+')
			bLen += boolInt(e.op != '-')
		}
		sb.WriteString("@@ -" + hunkRange(aLine, aLen) + " +" + hunkRange(bLine, bLen) + " @@\n")
		for _, e := range edits[from:to] {
			sb.WriteByte(e.op)
			sb.WriteString(e.line)
			if !strings.HasSuffix(e.line, "\n") {
				sb.WriteString("\n\\ No newline at end of file\n")
			}
		}
		start = to
	}
	return sb.String()
}

// hunkRange is one side of a hunk header: "start,length", or "start"
// alone for one line, with start 0 for an empty side, as diff writes it.
func hunkRange(before, n int) string {
	switch n {
	case 0:
		return strconv.Itoa(before) + ",0"
	case 1:
		return strconv.Itoa(before + 1)
	}
	return strconv.Itoa(before+1) + "," + strconv.Itoa(n)
}
