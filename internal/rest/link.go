package rest

import "strings"

// ParseLink reads an RFC 8288 Link header into a map from rel to URL, e.g.
// `<https://h/api/v4/projects?page=2>; rel="next"` gives {"next": "https://h/…"}.
// Entries it cannot read are skipped.
func ParseLink(header string) map[string]string {
	links := map[string]string{}
	for part := range strings.SplitSeq(header, ",") {
		part = strings.TrimSpace(part)
		if !strings.HasPrefix(part, "<") {
			continue
		}
		end := strings.Index(part, ">")
		if end < 0 {
			continue
		}
		target := part[1:end]
		if target == "" {
			// "<>" is the document itself: a "next" that leads back to the
			// page it came on would make a pager loop, so it links nowhere.
			continue
		}
		for param := range strings.SplitSeq(part[end+1:], ";") {
			name, value, ok := strings.Cut(strings.TrimSpace(param), "=")
			if !ok || !strings.EqualFold(strings.TrimSpace(name), "rel") {
				continue
			}
			for rel := range strings.FieldsSeq(strings.Trim(strings.TrimSpace(value), `"`)) {
				links[strings.ToLower(rel)] = target
			}
		}
	}
	return links
}
