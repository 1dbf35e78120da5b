package sourcehostfake

import (
	"encoding/json"

	"github.com/apitwin/apitwin/internal/jsonw"
	"github.com/apitwin/apitwin/sourcehost"
)

// Projects returns every project in id order, as an administrator sees
// them: what apitwin-fake's console shows at a glance. It reads the fake's
// state directly, so it adds nothing to the request log.
func (s *Server) Projects() []*sourcehost.Project {
	list := readBack[[]*sourcehost.Project](s, func(c *call) any {
		return json.RawMessage(jsonw.AppendArray(nil, s.st.projects, func(b []byte, p *project) []byte { return c.appendProject(b, p, true) }))
	})
	if list == nil {
		return nil
	}
	return *list
}
