package sourcehostfake

import (
	"net/http"
	"slices"
	"unicode/utf8"

	"github.com/apitwin/apitwin/internal/fakekit"
	"github.com/apitwin/apitwin/internal/jsonw"
)

// maxNoteBody is the real service's limit on a note, in characters.
const maxNoteBody = 1_000_000

// noteable is the issue or merge request a notes route names.
type noteable struct {
	pr    *project
	notes *[]*note
	kind  string // "Issue" or "MergeRequest"
	id    int64
	iid   int64
	issue *issue        // when an issue
	mr    *mergeRequest // when a merge request
}

// findNoteable finds the route's {iid} issue or merge request of the {id}
// project.
func (c *call) findNoteable(kind string) (*noteable, *fakekit.Answer) {
	pr, fail := c.project()
	if fail != nil {
		return nil, fail
	}
	if kind == "Issue" {
		is, fail := c.findIssue(pr)
		if fail != nil {
			return nil, fail
		}
		return &noteable{pr: pr, notes: &is.notes, kind: kind, id: is.id, iid: is.iid, issue: is}, nil
	}
	mr, fail := c.findMR(pr)
	if fail != nil {
		return nil, fail
	}
	return &noteable{pr: pr, notes: &mr.notes, kind: kind, id: mr.id, iid: mr.iid, mr: mr}, nil
}

// canSeeNote: internal notes show to reporters and above only.
func (c *call) canSeeNote(pr *project, n *note) bool {
	return !n.internal || c.st.access(c.user, pr) >= Reporter
}

func (c *call) listNotes(kind string) fakekit.Answer {
	nb, fail := c.findNoteable(kind)
	if fail != nil {
		return *fail
	}
	orderBy, desc := sortOrder(c.p, "created_at", "updated_at")
	if msg := c.p.problem(); msg != "" {
		return badRequest(msg)
	}
	page, fail := sortedPage(c, *nb.notes, func(n *note) bool { return c.canSeeNote(nb.pr, n) }, func(a, b *note) int {
		r := a.createdAt.Compare(b.createdAt)
		if orderBy == "updated_at" {
			r = a.updatedAt.Compare(b.updatedAt)
		}
		return ordered(r, a.id, b.id, desc)
	}, "")
	if fail != nil {
		return *fail
	}
	return c.doc(http.StatusOK, jsonw.AppendArray(c.buf(), page, c.appendNote))
}

func (c *call) findNote(nb *noteable) (*note, *fakekit.Answer) {
	id, valid := c.pathInt("note_id")
	for _, n := range *nb.notes {
		if valid && n.id == id && c.canSeeNote(nb.pr, n) {
			return n, nil
		}
	}
	return nil, errAnswer(notFound("Note"))
}

func (c *call) getNote(kind string) fakekit.Answer {
	nb, fail := c.findNoteable(kind)
	if fail != nil {
		return *fail
	}
	n, fail := c.findNote(nb)
	if fail != nil {
		return *fail
	}
	return c.doc(http.StatusOK, c.appendNote(c.buf(), n))
}

// noteBody reads and checks body.
func (c *call) noteBody() (string, *fakekit.Answer) {
	body := c.p.required("body")
	if msg := c.p.problem(); msg != "" {
		return "", errAnswer(badRequest(msg))
	}
	if len(body) > maxNoteBody && utf8.RuneCountInString(body) > maxNoteBody {
		return "", errAnswer(invalid(http.StatusBadRequest, map[string][]string{"note": {"is too long (maximum is 1000000 characters)"}}))
	}
	return body, nil
}

func (c *call) createNote(kind string) fakekit.Answer {
	nb, fail := c.findNoteable(kind)
	if fail != nil {
		return *fail
	}
	internal, _ := c.p.boolean("internal")
	if v, ok := c.p.boolean("confidential"); ok { // its former name
		internal = internal || v
	}
	body, fail := c.noteBody()
	if fail != nil {
		return *fail
	}
	if internal {
		if fail := c.atLeast(nb.pr, Reporter); fail != nil {
			return *fail
		}
	}
	n := c.addNote(nb, body, false, internal)
	c.queueNoteEvent(nb, n, "create")
	return c.doc(http.StatusCreated, c.appendNote(c.buf(), n))
}

// addNote adds a note by c.user to nb. s.mu must be held.
func (c *call) addNote(nb *noteable, body string, system, internal bool) *note {
	now := c.st.clock.Now()
	n := &note{id: c.st.next("note"), body: body, author: c.user, system: system, internal: internal, createdAt: now,
		updatedAt: now, noteableType: nb.kind, noteableID: nb.id, noteableIID: nb.iid, project: nb.pr}
	n.discussionID = individualDiscussionID(n)
	*nb.notes = append(*nb.notes, n)
	nb.pr.lastActivity = now
	return n
}

// systemNoteOnIssue records a change of an issue as the real service
// does, with a system note by c.user ("closed", "reopened"). s.mu must be
// held.
func (c *call) systemNoteOnIssue(is *issue, body string) {
	c.addNote(&noteable{pr: is.project, notes: &is.notes, kind: "Issue", id: is.id, iid: is.iid, issue: is}, body, true, false)
}

// systemNoteOnMR is systemNoteOnIssue for a merge request ("closed",
// "reopened", "merged"). s.mu must be held.
func (c *call) systemNoteOnMR(mr *mergeRequest, body string) {
	c.addNote(&noteable{pr: mr.project, notes: &mr.notes, kind: "MergeRequest", id: mr.id, iid: mr.iid, mr: mr}, body, true, false)
}

// mayChangeNote: system notes stay as written; a note's author may change
// it, an administrator too, and (to delete) a maintainer.
func (c *call) mayChangeNote(pr *project, n *note, deleting bool) *fakekit.Answer {
	switch {
	case n.system:
		return errAnswer(forbidden())
	case n.author == c.user || c.user.admin:
		return nil
	case deleting:
		return c.atLeast(pr, Maintainer)
	}
	return errAnswer(forbidden())
}

func (c *call) updateNote(kind string) fakekit.Answer {
	nb, fail := c.findNoteable(kind)
	if fail != nil {
		return *fail
	}
	n, fail := c.findNote(nb)
	if fail != nil {
		return *fail
	}
	body, fail := c.noteBody()
	if fail != nil {
		return *fail
	}
	if fail := c.mayChangeNote(nb.pr, n, false); fail != nil {
		return *fail
	}
	n.body, n.updatedAt = body, c.st.clock.Now()
	c.queueNoteEvent(nb, n, "update")
	return c.doc(http.StatusOK, c.appendNote(c.buf(), n))
}

func (c *call) deleteNote(kind string) fakekit.Answer {
	nb, fail := c.findNoteable(kind)
	if fail != nil {
		return *fail
	}
	n, fail := c.findNote(nb)
	if fail != nil {
		return *fail
	}
	if fail := c.mayChangeNote(nb.pr, n, true); fail != nil {
		return *fail
	}
	*nb.notes = slices.DeleteFunc(*nb.notes, func(x *note) bool { return x == n })
	c.s.removed("note", 1)
	return fakekit.Answer{Status: http.StatusNoContent}
}

// userNotes counts the notes people wrote (not the system's).
func userNotes(notes []*note) int {
	n := 0
	for _, x := range notes {
		if !x.system {
			n++
		}
	}
	return n
}
