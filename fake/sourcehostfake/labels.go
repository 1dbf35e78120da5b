package sourcehostfake

import (
	"cmp"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/apitwin/apitwin/internal/fakekit"
)

// labelJSON is a project label as the API shows it; the counts come with
// a single label, and with a list only when with_counts is true.
type labelJSON struct {
	ID                     int64   `json:"id"`
	Name                   string  `json:"name"`
	Color                  string  `json:"color"`
	TextColor              string  `json:"text_color"`
	Description            *string `json:"description"`
	DescriptionHTML        string  `json:"description_html"`
	OpenIssuesCount        *int    `json:"open_issues_count,omitempty"`
	ClosedIssuesCount      *int    `json:"closed_issues_count,omitempty"`
	OpenMergeRequestsCount *int    `json:"open_merge_requests_count,omitempty"`
	Subscribed             bool    `json:"subscribed"`
	Priority               *int64  `json:"priority"`
	IsProjectLabel         bool    `json:"is_project_label"`
}

func renderLabel(pr *project, l *label, counts bool) labelJSON {
	out := labelJSON{ID: l.id, Name: l.name, Color: l.color, TextColor: textColor(l.color), Priority: l.priority, IsProjectLabel: true}
	if l.description != "" {
		d := l.description
		out.Description = &d
		out.DescriptionHTML = "<p>" + htmlEscape(d) + "</p>"
	}
	if counts {
		var openIssues, closedIssues, openMRs int
		for _, is := range pr.issues {
			if hasLabel(is.labels, l.name) {
				if is.state == "opened" {
					openIssues++
				} else {
					closedIssues++
				}
			}
		}
		for _, mr := range pr.mrs {
			if mr.state == "opened" && hasLabel(mr.labels, l.name) {
				openMRs++
			}
		}
		out.OpenIssuesCount, out.ClosedIssuesCount, out.OpenMergeRequestsCount = &openIssues, &closedIssues, &openMRs
	}
	return out
}

func hasLabel(labels []string, name string) bool {
	return slices.ContainsFunc(labels, func(x string) bool { return strings.EqualFold(x, name) })
}

var htmlEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&#39;")

func htmlEscape(s string) string { return htmlEscaper.Replace(s) }

// textColor is the color labels are written in on color: light on dark.
func textColor(color string) string {
	hex := strings.TrimPrefix(color, "#")
	if len(hex) == 3 {
		hex = string([]byte{hex[0], hex[0], hex[1], hex[1], hex[2], hex[2]})
	}
	v, err := strconv.ParseUint(hex, 16, 32)
	if len(hex) != 6 || err != nil {
		return "#FFFFFF"
	}
	r, g, b := v>>16&0xff, v>>8&0xff, v&0xff
	if r*299+g*587+b*114 > 128_000 {
		return "#1F1E24"
	}
	return "#FFFFFF"
}

// defaultLabelColor is the color of labels made on the fly, as the real
// service's default.
const defaultLabelColor = "#6699cc"

var hexColorRE = regexp.MustCompile(`^#(?:[0-9A-Fa-f]{3}|[0-9A-Fa-f]{6})$`)

// cssColors are the color names the fake takes besides hex codes (CSS's
// basic colors; the real service takes every CSS name).
var cssColors = map[string]string{
	"black": "#000000", "silver": "#c0c0c0", "gray": "#808080", "white": "#ffffff", "maroon": "#800000", "red": "#ff0000",
	"purple": "#800080", "fuchsia": "#ff00ff", "green": "#008000", "lime": "#00ff00", "olive": "#808000", "yellow": "#ffff00",
	"navy": "#000080", "blue": "#0000ff", "teal": "#008080", "aqua": "#00ffff", "orange": "#ffa500",
}

// labelColor checks a color: a hex code (#RGB or #RRGGBB) or a color name.
func labelColor(s string) (string, bool) {
	s = strings.TrimSpace(s)
	if hexColorRE.MatchString(s) {
		return s, true
	}
	if c, ok := cssColors[strings.ToLower(s)]; ok {
		return c, true
	}
	return "", false
}

// labelNameProblem says what is wrong with a label name, as the real
// service words it, or "".
func labelNameProblem(name string) string {
	switch {
	case utf8.RuneCountInString(name) > 255:
		return "is too long (maximum is 255 characters)"
	case strings.Contains(name, ",") || strings.ContainsFunc(name, func(r rune) bool { return r < 0x20 || r == 0x7f }):
		return "is invalid"
	}
	return ""
}

// labelNamed finds a project's label by name, ignoring case. s.mu must be
// held.
func (pr *project) labelNamed(name string) *label {
	for _, l := range pr.labels {
		if strings.EqualFold(l.name, name) {
			return l
		}
	}
	return nil
}

// ensureLabels creates the labels an issue or merge request is given that
// the project lacks, as the real service does, and returns the names as
// the project spells them. Names it could not take are left out. s.mu
// must be held.
func (st *state) ensureLabels(pr *project, names []string) []string {
	out := make([]string, 0, len(names))
	for _, name := range names {
		l := pr.labelNamed(name)
		if l == nil {
			if labelNameProblem(name) != "" {
				continue
			}
			l = &label{id: st.next("label"), name: name, color: defaultLabelColor}
			pr.labels = append(pr.labels, l)
		}
		if !slices.Contains(out, l.name) {
			out = append(out, l.name)
		}
	}
	return out
}

func (c *call) listLabels() fakekit.Answer {
	pr, fail := c.project()
	if fail != nil {
		return *fail
	}
	counts, _ := c.p.boolean("with_counts")
	search, _ := c.p.str("search")
	if msg := c.p.problem(); msg != "" {
		return badRequest(msg)
	}
	items := keep(pr.labels, func(l *label) bool { return search == "" || containsFold(l.name, search) })
	slices.SortStableFunc(items, func(a, b *label) int {
		return cmp.Or(cmp.Compare(strings.ToLower(a.name), strings.ToLower(b.name)), cmp.Compare(a.id, b.id))
	})
	page, fail := paginate(c, items)
	if fail != nil {
		return *fail
	}
	return ok(renderAll(page, func(l *label) labelJSON { return renderLabel(pr, l, counts) }))
}

// findLabel finds the route's {label_id}, an id or a name.
func (c *call) findLabel(pr *project) (*label, *fakekit.Answer) {
	ref := c.r.PathValue("label_id")
	if id, err := strconv.ParseInt(ref, 10, 64); err == nil {
		for _, l := range pr.labels {
			if l.id == id {
				return l, nil
			}
		}
	}
	if l := pr.labelNamed(ref); l != nil {
		return l, nil
	}
	return nil, errAnswer(notFound("Label"))
}

// labelInBody serves the older edit and delete of a label, PUT and DELETE
// /projects/:id/labels, which the real service still serves and widely
// used clients still send: the label is named in the parameters (label_id
// or name, exactly one, as the real service checks) instead of the path.
// Then it is the newer form's handler.
func labelInBody(fn func(c *call) fakekit.Answer) func(c *call) fakekit.Answer {
	return func(c *call) fakekit.Answer {
		id, hasID := c.p.int("label_id")
		name, hasName := c.p.str("name")
		switch {
		case hasID && hasName:
			return badRequest("label_id, name are mutually exclusive")
		case !hasID && !hasName:
			return badRequest("label_id, name are missing, exactly one parameter must be provided")
		}
		if msg := c.p.problem(); msg != "" {
			return badRequest(msg)
		}
		if hasID {
			name = strconv.FormatInt(id, 10)
		}
		c.r.SetPathValue("label_id", name)
		return fn(c)
	}
}

func (c *call) getLabel() fakekit.Answer {
	pr, fail := c.project()
	if fail != nil {
		return *fail
	}
	l, fail := c.findLabel(pr)
	if fail != nil {
		return *fail
	}
	return ok(renderLabel(pr, l, true))
}

// labelFields reads color, description and priority.
func (c *call) labelFields(fields map[string][]string) (color string, hasColor bool, description string, hasDesc bool, priority *int64, hasPriority bool) {
	raw, hasColor := c.p.str("color")
	if hasColor {
		var ok bool
		if color, ok = labelColor(raw); !ok {
			fields["color"] = append(fields["color"], "must be a valid color code")
		}
	}
	description, hasDesc = c.p.str("description")
	if hasPriority = c.p.has("priority"); hasPriority {
		if v, ok := c.p.int("priority"); ok {
			if v < 0 {
				fields["priority"] = append(fields["priority"], "must be greater than or equal to 0")
			}
			priority = &v
		}
	}
	return color, hasColor, description, hasDesc, priority, hasPriority
}

func (c *call) createLabel() fakekit.Answer {
	pr, fail := c.project()
	if fail != nil {
		return *fail
	}
	if fail := c.atLeast(pr, Reporter); fail != nil {
		return *fail
	}
	name := strings.TrimSpace(c.p.required("name"))
	if !c.p.has("color") {
		c.p.fail("color", "is missing")
	}
	fields := map[string][]string{}
	color, _, description, _, priority, _ := c.labelFields(fields)
	if msg := c.p.problem(); msg != "" {
		return badRequest(msg)
	}
	if why := labelNameProblem(name); why != "" {
		fields["title"] = append(fields["title"], why)
	}
	if len(fields) > 0 {
		return invalid(http.StatusBadRequest, fields)
	}
	if pr.labelNamed(name) != nil {
		return message(http.StatusConflict, "Label already exists")
	}
	l := &label{id: c.st.next("label"), name: name, color: color, description: description, priority: priority}
	pr.labels = append(pr.labels, l)
	return created(renderLabel(pr, l, true))
}

func (c *call) updateLabel() fakekit.Answer {
	pr, fail := c.project()
	if fail != nil {
		return *fail
	}
	if fail := c.atLeast(pr, Reporter); fail != nil {
		return *fail
	}
	l, fail := c.findLabel(pr)
	if fail != nil {
		return *fail
	}
	newName, hasName := c.p.str("new_name")
	fields := map[string][]string{}
	color, hasColor, description, hasDesc, priority, hasPriority := c.labelFields(fields)
	if msg := c.p.problem(); msg != "" {
		return badRequest(msg)
	}
	if !hasName && !hasColor && !hasDesc && !hasPriority {
		return badRequest("new_name, color, description, priority are missing, at least one parameter must be provided")
	}
	newName = strings.TrimSpace(newName)
	if hasName {
		if why := labelNameProblem(newName); why != "" {
			fields["title"] = append(fields["title"], why)
		} else if newName == "" {
			fields["title"] = append(fields["title"], "can't be blank")
		} else if other := pr.labelNamed(newName); other != nil && other != l {
			fields["title"] = append(fields["title"], "has already been taken")
		}
	}
	if len(fields) > 0 {
		return invalid(http.StatusBadRequest, fields)
	}
	if hasName && newName != l.name {
		renameLabel(pr, l.name, newName)
		l.name = newName
	}
	if hasColor {
		l.color = color
	}
	if hasDesc {
		l.description = description
	}
	if hasPriority {
		l.priority = priority
	}
	return ok(renderLabel(pr, l, true))
}

// renameLabel renames (to "": removes) a label on every issue and merge
// request of pr. s.mu must be held.
func renameLabel(pr *project, from, to string) {
	swap := func(labels []string) []string {
		out := labels[:0]
		for _, x := range labels {
			switch {
			case !strings.EqualFold(x, from):
				out = append(out, x)
			case to != "":
				out = append(out, to)
			}
		}
		return out
	}
	for _, is := range pr.issues {
		is.labels = swap(is.labels)
	}
	for _, mr := range pr.mrs {
		mr.labels = swap(mr.labels)
	}
}

func (c *call) deleteLabel() fakekit.Answer {
	pr, fail := c.project()
	if fail != nil {
		return *fail
	}
	if fail := c.atLeast(pr, Reporter); fail != nil {
		return *fail
	}
	l, fail := c.findLabel(pr)
	if fail != nil {
		return *fail
	}
	pr.labels = slices.DeleteFunc(pr.labels, func(x *label) bool { return x == l })
	c.s.removed("label", 1)
	renameLabel(pr, l.name, "")
	return fakekit.Answer{Status: http.StatusNoContent}
}
