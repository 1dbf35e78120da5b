package sourcehost_test

import (
	"testing"

	"github.com/apitwin/apitwin/sourcehost"
)

// GitLab's scope hierarchy: api grants every other API and repository
// scope, read_api the read ones, write_repository read_repository; no
// scope grants one above it.
func TestScopesGrant(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		held []string
		want string
		ok   bool
	}{
		{[]string{sourcehost.ScopeAPI}, sourcehost.ScopeReadUser, true},
		{[]string{sourcehost.ScopeAPI}, sourcehost.ScopeReadRepository, true},
		{[]string{sourcehost.ScopeAPI}, sourcehost.ScopeReadAPI, true},
		{[]string{sourcehost.ScopeAPI}, sourcehost.ScopeWriteRepository, true},
		{[]string{sourcehost.ScopeAPI}, sourcehost.ScopeSudo, false},
		{[]string{sourcehost.ScopeAPI}, sourcehost.ScopeAdminMode, false},
		{[]string{sourcehost.ScopeReadAPI}, sourcehost.ScopeReadUser, true},
		{[]string{sourcehost.ScopeReadAPI}, sourcehost.ScopeReadRepository, true},
		{[]string{sourcehost.ScopeReadAPI}, sourcehost.ScopeAPI, false},
		{[]string{sourcehost.ScopeReadAPI}, sourcehost.ScopeWriteRepository, false},
		{[]string{sourcehost.ScopeWriteRepository}, sourcehost.ScopeReadRepository, true},
		{[]string{sourcehost.ScopeReadRepository}, sourcehost.ScopeWriteRepository, false},
		{[]string{sourcehost.ScopeReadUser}, sourcehost.ScopeReadAPI, false},
		{[]string{sourcehost.ScopeReadUser, sourcehost.ScopeReadRepository}, sourcehost.ScopeReadRepository, true},
		{nil, sourcehost.ScopeReadUser, false},
	} {
		if got := sourcehost.ScopesGrant(c.held, c.want); got != c.ok {
			t.Errorf("ScopesGrant(%v, %s) = %v, want %v", c.held, c.want, got, c.ok)
		}
	}
	tok := &sourcehost.PersonalAccessToken{Scopes: []string{sourcehost.ScopeAPI}}
	if !tok.Grants(sourcehost.ScopeAPI, sourcehost.ScopeReadUser, sourcehost.ScopeReadRepository) || tok.HasScopes(sourcehost.ScopeReadUser) {
		t.Error("an api token: Grants must follow the hierarchy, HasScopes must not")
	}
}
