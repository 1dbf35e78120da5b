package sourcehostfake

import (
	"crypto/sha1" //nolint:gosec // a discussion's id is a SHA-1, as the real service's
	"encoding/hex"
	"net/http"
	"strconv"
	"time"

	"github.com/apitwin/apitwin/internal/fakekit"
)

// A discussion (a thread) is the notes of a merge request that share a
// discussion id. A note made through the notes API is a thread of its
// own (an individual note); one made through the discussions API starts
// or continues a thread of DiscussionNotes, which can be resolved. A
// reply to an individual note makes its thread a discussion, as the real
// service converts it; a system note's thread takes no reply.

// individualDiscussionID is the id of a note's own thread: stable, so
// that a snapshot need not keep it.
func individualDiscussionID(n *note) string {
	h := sha1.Sum([]byte("note\x00" + strconv.FormatInt(n.id, 10))) //nolint:gosec // an id, not a secret
	return hex.EncodeToString(h[:])
}

// newDiscussionID is the id of a thread started with note id first.
func newDiscussionID(first int64) string {
	h := sha1.Sum([]byte("discussion\x00" + strconv.FormatInt(first, 10))) //nolint:gosec // an id, not a secret
	return hex.EncodeToString(h[:])
}

// resolvable: the notes of a merge request's discussion threads, not
// system notes, as the real service's DiscussionNotes.
func (n *note) resolvable() bool {
	return n.discussionNote && !n.system && n.noteableType == "MergeRequest"
}

// discussionJSON is a thread, as the real service's Discussion entity.
type discussionJSON struct {
	ID             string    `json:"id"`
	IndividualNote bool      `json:"individual_note"`
	Notes          []written `json:"notes"`
}

// discussion is a thread's notes, in order, as the caller may see them.
type discussion struct {
	id    string
	notes []*note
}

// individual reports whether a thread is one note of its own.
func (d *discussion) individual() bool { return len(d.notes) == 1 && !d.notes[0].discussionNote }

// discussionsOf groups nb's notes the caller may see into threads, in
// the order each began.
func (c *call) discussionsOf(nb *noteable) []*discussion {
	var out []*discussion
	at := map[string]*discussion{}
	for _, n := range *nb.notes {
		if !c.canSeeNote(nb.pr, n) {
			continue
		}
		d := at[n.discussionID]
		if d == nil {
			d = &discussion{id: n.discussionID}
			at[n.discussionID] = d
			out = append(out, d)
		}
		d.notes = append(d.notes, n)
	}
	return out
}

func (c *call) discussionView(d *discussion) discussionJSON {
	v := discussionJSON{ID: d.id, IndividualNote: d.individual(), Notes: make([]written, 0, len(d.notes))}
	for _, n := range d.notes {
		v.Notes = append(v.Notes, written(c.appendNote(nil, n)))
	}
	return v
}

// findDiscussion finds the route's {discussion_id} thread of nb.
func (c *call) findDiscussion(nb *noteable) (*discussion, *fakekit.Answer) {
	id := c.r.PathValue("discussion_id")
	for _, d := range c.discussionsOf(nb) {
		if d.id == id {
			return d, nil
		}
	}
	return nil, errAnswer(notFound("Discussion"))
}

func (c *call) listDiscussions(kind string) fakekit.Answer {
	nb, fail := c.findNoteable(kind)
	if fail != nil {
		return *fail
	}
	page, fail := paginate(c, c.discussionsOf(nb))
	if fail != nil {
		return *fail
	}
	return ok(renderAll(page, c.discussionView))
}

func (c *call) getDiscussion(kind string) fakekit.Answer {
	nb, fail := c.findNoteable(kind)
	if fail != nil {
		return *fail
	}
	d, fail := c.findDiscussion(nb)
	if fail != nil {
		return *fail
	}
	return ok(c.discussionView(d))
}

func (c *call) createDiscussion(kind string) fakekit.Answer {
	nb, fail := c.findNoteable(kind)
	if fail != nil {
		return *fail
	}
	body, fail := c.noteBody()
	if fail != nil {
		return *fail
	}
	n := c.addNote(nb, body, false, false)
	n.discussionID, n.discussionNote = newDiscussionID(n.id), true
	c.queueNoteEvent(nb, n, "create")
	return created(c.discussionView(&discussion{id: n.discussionID, notes: []*note{n}}))
}

func (c *call) replyToDiscussion(kind string) fakekit.Answer {
	nb, fail := c.findNoteable(kind)
	if fail != nil {
		return *fail
	}
	d, fail := c.findDiscussion(nb)
	if fail != nil {
		return *fail
	}
	body, fail := c.noteBody()
	if fail != nil {
		return *fail
	}
	if d.notes[0].system {
		return badRequest("Discussion can not be replied to.")
	}
	for _, n := range d.notes { // an individual note becomes a discussion
		n.discussionNote = true
	}
	n := c.addNote(nb, body, false, d.notes[0].internal)
	n.discussionID, n.discussionNote = d.id, true
	c.queueNoteEvent(nb, n, "create")
	return c.doc(http.StatusCreated, c.appendNote(c.buf(), n))
}

func (c *call) resolveDiscussion(kind string) fakekit.Answer {
	nb, fail := c.findNoteable(kind)
	if fail != nil {
		return *fail
	}
	resolved, has := c.p.boolean("resolved")
	if !has && c.p.problem() == "" {
		c.p.fail("resolved", "is missing")
	}
	if msg := c.p.problem(); msg != "" {
		return badRequest(msg)
	}
	d, fail := c.findDiscussion(nb)
	if fail != nil {
		return *fail
	}
	// Resolving takes a resolvable thread, and its merge request's author
	// or a developer and above.
	if !d.notes[0].resolvable() || nb.mr.author != c.user && c.st.access(c.user, nb.pr) < Developer {
		return forbidden()
	}
	now := c.st.clock.Now()
	for _, n := range d.notes {
		switch {
		case resolved && !n.resolved:
			n.resolved, n.resolvedBy, n.resolvedAt = true, c.user, &now
		case !resolved:
			n.resolved, n.resolvedBy, n.resolvedAt = false, nil, (*time.Time)(nil)
		}
	}
	return ok(c.discussionView(d))
}
