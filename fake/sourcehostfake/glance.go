package sourcehostfake

import "github.com/apitwin/apitwin/sourcehost"

// Projects returns every project in id order, as an administrator sees
// them: what apitwin-fake's console shows at a glance. It reads the fake's
// state directly, so it adds nothing to the request log.
func (s *Server) Projects() []*sourcehost.Project {
	list := readBack[[]*sourcehost.Project](s, func(c *call) any {
		return renderAll(s.st.projects, func(p *project) *projectJSON { return c.renderProject(p, true) })
	})
	if list == nil {
		return nil
	}
	return *list
}
