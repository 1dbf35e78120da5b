package sourcehostfake

import (
	"fmt"
	"strings"
)

// MemberSeed gives a user an access level in a group or a project.
type MemberSeed struct {
	Username string `json:"username" yaml:"username"`
	// AccessLevel is Guest (10), Reporter (20), Developer (30), Maintainer
	// (40) or Owner (50).
	AccessLevel int `json:"access_level" yaml:"access_level"`
}

// GroupSeed is a group to add (AddGroup, Seed.Groups): a namespace that
// projects can belong to, whose members have access to all its projects.
type GroupSeed struct {
	Path string `json:"path" yaml:"path"`
	// Name empty means the path.
	Name    string       `json:"name,omitempty" yaml:"name,omitempty"`
	Members []MemberSeed `json:"members,omitempty" yaml:"members,omitempty"`
}

// AddGroup adds a group namespace with its members and returns its id.
func (s *Server) AddGroup(seed GroupSeed) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !projectPathRE.MatchString(seed.Path) || len(seed.Path) > 255 {
		return 0, fmt.Errorf("sourcehostfake: invalid group path %q", seed.Path)
	}
	if s.st.nsByPath[strings.ToLower(seed.Path)] != nil {
		return 0, fmt.Errorf("sourcehostfake: namespace %q is taken", seed.Path)
	}
	members, err := s.st.seedMembers(seed.Members)
	if err != nil {
		return 0, err
	}
	if err := s.seedRoom(recordNeed{"namespace", 1}, recordNeed{"member", len(members)}); err != nil {
		return 0, err
	}
	ns := s.st.addNamespace(firstNonEmpty(seed.Name, seed.Path), seed.Path, "group", nil)
	s.st.addMembers(ns.members, members)
	return ns.id, nil
}

// seedMembers checks members and returns their levels by user id, the
// last entry for a user winning. s.mu must be held.
func (st *state) seedMembers(seeds []MemberSeed) (map[int64]int, error) {
	out := map[int64]int{}
	for i, m := range seeds {
		u, err := st.userNamed(m.Username)
		if err == nil && (m.AccessLevel < Guest || m.AccessLevel > Owner) {
			err = fmt.Errorf("sourcehostfake: invalid access level %d", m.AccessLevel)
		}
		if err != nil {
			return nil, at(fmt.Sprintf("members[%d]", i), err)
		}
		out[u.id] = m.AccessLevel
	}
	return out, nil
}

// AddGroupMember gives a user an access level (Guest … Owner) in a group,
// and so in all its projects.
func (s *Server) AddGroupMember(groupPath, username string, level int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	ns := s.st.nsByPath[strings.ToLower(groupPath)]
	if ns == nil || ns.kind != "group" {
		return fmt.Errorf("sourcehostfake: no group %q", groupPath)
	}
	members, err := s.st.seedMembers([]MemberSeed{{Username: username, AccessLevel: level}})
	if err != nil {
		return unwrapEntry(err)
	}
	if err := s.seedRoom(recordNeed{"member", 1}); err != nil {
		return err
	}
	s.st.addMembers(ns.members, members)
	return nil
}
