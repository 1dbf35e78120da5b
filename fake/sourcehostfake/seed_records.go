package sourcehostfake

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/apitwin/apitwin/internal/jsonw"
	"github.com/apitwin/apitwin/sourcehost"
)

// LabelSeed is a label to add (ProjectSeed.Labels).
type LabelSeed struct {
	Name string `json:"name" yaml:"name"`
	// Color is "#RGB", "#RRGGBB" or a basic CSS color name; empty means
	// the default, "#6699cc".
	Color       string `json:"color,omitempty" yaml:"color,omitempty"`
	Description string `json:"description,omitempty" yaml:"description,omitempty"`
}

// MilestoneSeed is a milestone to add (ProjectSeed.Milestones).
type MilestoneSeed struct {
	Title       string `json:"title" yaml:"title"`
	Description string `json:"description,omitempty" yaml:"description,omitempty"`
	// DueDate and StartDate are YYYY-MM-DD.
	DueDate   string `json:"due_date,omitempty" yaml:"due_date,omitempty"`
	StartDate string `json:"start_date,omitempty" yaml:"start_date,omitempty"`
	// State is active (the default) or closed.
	State string `json:"state,omitempty" yaml:"state,omitempty"`
}

// TagSeed is a tag to add (ProjectSeed.Tags).
type TagSeed struct {
	Name string `json:"name" yaml:"name"`
	// Ref is what to tag: a branch, a tag or a commit SHA; empty means the
	// default branch.
	Ref string `json:"ref,omitempty" yaml:"ref,omitempty"`
	// Message makes an annotated tag.
	Message string `json:"message,omitempty" yaml:"message,omitempty"`
}

// ReleaseSeed is a release to add (ProjectSeed.Releases), of a tag that
// exists (Tags are added first).
type ReleaseSeed struct {
	TagName string `json:"tag_name" yaml:"tag_name"`
	// Name empty means the tag name.
	Name        string `json:"name,omitempty" yaml:"name,omitempty"`
	Description string `json:"description,omitempty" yaml:"description,omitempty"`
}

// seedRepoRecords adds a project seed's labels, milestones, tags and
// releases as root, gathering their webhook deliveries on c. s.mu must be
// held.
func (s *Server) seedRepoRecords(c *call, p *project, seed ProjectSeed) error {
	for i, l := range seed.Labels {
		name := strings.TrimSpace(l.Name)
		color := defaultLabelColor
		if l.Color != "" {
			var ok bool
			if color, ok = labelColor(l.Color); !ok {
				return at(fmt.Sprintf("labels[%d]", i), fmt.Errorf("sourcehostfake: color %q must be a valid color code", l.Color))
			}
		}
		switch {
		case name == "":
			return at(fmt.Sprintf("labels[%d]", i), errors.New("sourcehostfake: name is missing"))
		case labelNameProblem(name) != "":
			return at(fmt.Sprintf("labels[%d]", i), fmt.Errorf("sourcehostfake: label name %q %s", name, labelNameProblem(name)))
		case p.labelNamed(name) != nil:
			return at(fmt.Sprintf("labels[%d]", i), errors.New("sourcehostfake: Label already exists"))
		}
		p.labels = append(p.labels, &label{id: s.st.next("label"), name: name, color: color, description: l.Description})
	}
	for i, m := range seed.Milestones {
		title := strings.TrimSpace(m.Title)
		where := fmt.Sprintf("milestones[%d]", i)
		if title == "" {
			return at(where, errors.New("sourcehostfake: title is missing"))
		}
		for _, d := range []string{m.DueDate, m.StartDate} {
			if _, err := time.Parse(time.DateOnly, d); d != "" && err != nil {
				return at(where, fmt.Errorf("sourcehostfake: date %q is not YYYY-MM-DD", d))
			}
		}
		if m.State != "" && m.State != "active" && m.State != "closed" {
			return at(where, fmt.Errorf("sourcehostfake: invalid milestone state %q (active or closed)", m.State))
		}
		if fail := checkMilestone(p, nil, title, m.Description, m.StartDate, m.DueDate); fail != nil {
			return at(where, answerError(fail))
		}
		now := s.st.clock.Now()
		p.milestones = append(p.milestones, &milestone{id: s.st.next("milestone"),
			iid: nextIID(p.milestones, func(m *milestone) int64 { return m.iid }), project: p, title: title,
			description: m.Description, state: firstNonEmpty(m.State, "active"), dueDate: m.DueDate, startDate: m.StartDate,
			createdAt: now, updatedAt: now})
	}
	for i, t := range seed.Tags {
		if _, fail := c.addTag(p, t.Name, firstNonEmpty(t.Ref, p.defaultBranch), t.Message); fail != nil {
			return at(fmt.Sprintf("tags[%d]", i), answerError(fail))
		}
	}
	for i, r := range seed.Releases {
		where := fmt.Sprintf("releases[%d]", i)
		t := p.repo.tags[r.TagName]
		switch {
		case t == nil:
			return at(where, fmt.Errorf("sourcehostfake: no tag %q", r.TagName))
		case p.releaseFor(r.TagName) != nil:
			return at(where, errors.New("sourcehostfake: Release already exists"))
		}
		now := s.st.clock.Now()
		rel := &release{id: s.st.next("release"), tagName: r.TagName, name: firstNonEmpty(r.Name, r.TagName),
			description: r.Description, author: c.user, sha: t.commit.sha, createdAt: now, releasedAt: now}
		p.releases = append(p.releases, rel)
		c.queueReleaseEvent(p, rel, "create")
	}
	return nil
}

// milestoneNamed finds a seed's milestone by title. s.mu must be held.
func milestoneNamed(p *project, title string) (*milestone, error) {
	if title == "" {
		return nil, nil
	}
	i := slices.IndexFunc(p.milestones, func(m *milestone) bool { return m.title == title })
	if i < 0 {
		return nil, fmt.Errorf("sourcehostfake: no milestone %q", title)
	}
	return p.milestones[i], nil
}

// Labels returns a project's labels with their counts, by name.
func (s *Server) Labels(projectID int64) []*sourcehost.Label {
	return readBackAll[sourcehost.Label](s, projectID, func(_ *call, p *project) any {
		items := slices.Clone(p.labels)
		slices.SortFunc(items, func(a, b *label) int { return strings.Compare(strings.ToLower(a.name), strings.ToLower(b.name)) })
		return renderAll(items, func(l *label) labelJSON { return renderLabel(p, l, true) })
	})
}

// Milestones returns a project's milestones in creation order.
func (s *Server) Milestones(projectID int64) []*sourcehost.Milestone {
	return readBackAll[sourcehost.Milestone](s, projectID, func(c *call, p *project) any {
		return json.RawMessage(jsonw.AppendArray(nil, p.milestones, c.appendMilestone))
	})
}

// Releases returns a project's releases in creation order.
func (s *Server) Releases(projectID int64) []*sourcehost.Release {
	return readBackAll[sourcehost.Release](s, projectID, func(c *call, p *project) any {
		return renderAll(p.releases, func(r *release) releaseJSON { return c.renderRelease(p, r) })
	})
}

// IssueNotes returns the notes of an issue (system notes and internal ones
// included) in creation order; nil for an issue that does not exist.
func (s *Server) IssueNotes(projectID, issueIID int64) []*sourcehost.Note {
	return readBackAll[sourcehost.Note](s, projectID, func(c *call, p *project) any {
		i := slices.IndexFunc(p.issues, func(is *issue) bool { return is.iid == issueIID })
		if i < 0 {
			return nil
		}
		return json.RawMessage(jsonw.AppendArray(nil, p.issues[i].notes, c.appendNote))
	})
}

// MergeRequestNotes returns the notes of a merge request in creation
// order; nil for one that does not exist.
func (s *Server) MergeRequestNotes(projectID, mrIID int64) []*sourcehost.Note {
	return readBackAll[sourcehost.Note](s, projectID, func(c *call, p *project) any {
		i := slices.IndexFunc(p.mrs, func(mr *mergeRequest) bool { return mr.iid == mrIID })
		if i < 0 {
			return nil
		}
		return json.RawMessage(jsonw.AppendArray(nil, p.mrs[i].notes, c.appendNote))
	})
}

// Jobs returns a pipeline's jobs (retried ones included) in creation
// order; nil for a pipeline that does not exist.
func (s *Server) Jobs(projectID, pipelineID int64) []*sourcehost.Job {
	return readBackAll[sourcehost.Job](s, projectID, func(c *call, p *project) any {
		i := slices.IndexFunc(p.pipelines, func(pl *pipeline) bool { return pl.id == pipelineID })
		if i < 0 {
			return nil
		}
		return renderAll(p.pipelines[i].jobs, c.renderJob)
	})
}
