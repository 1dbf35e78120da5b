package sourcehostfake

import "github.com/apitwin/apitwin/internal/fakekit"

// The application settings the fake keeps: the one that says where
// webhooks may go. GET and PUT /api/v4/application/settings serve it as the
// real service serves its settings, to administrators only; the fake's
// other settings are fixed, and a PUT of one it does not keep changes
// nothing, as the real service ignores a parameter it does not know.

// settingLocalHooks is the setting's name in the API.
const settingLocalHooks = "allow_local_requests_from_web_hooks_and_services"

// settingsJSON is the application settings as the API shows them.
type settingsJSON struct {
	ID                                        int64 `json:"id"`
	AllowLocalRequestsFromWebHooksAndServices bool  `json:"allow_local_requests_from_web_hooks_and_services"`
}

// admin checks that the caller is an administrator, as the real service's
// settings API does (authenticated_as_admin!).
func (c *call) admin() *fakekit.Answer {
	if c.user == nil || !c.user.admin {
		a := forbidden()
		return &a
	}
	return nil
}

func (c *call) settings() fakekit.Answer {
	return ok(settingsJSON{ID: 1, AllowLocalRequestsFromWebHooksAndServices: c.s.localHooks.Load()})
}

func (c *call) getSettings() fakekit.Answer {
	if fail := c.admin(); fail != nil {
		return *fail
	}
	return c.settings()
}

func (c *call) updateSettings() fakekit.Answer {
	if fail := c.admin(); fail != nil {
		return *fail
	}
	p := c.p
	if len(p.json) == 0 && len(p.form) == 0 && len(p.query) == 0 {
		// Grape's answer to a PUT naming none of the settings.
		return badRequest(settingLocalHooks + " are missing, at least one parameter must be provided")
	}
	allow, given := p.boolean(settingLocalHooks)
	if msg := p.problem(); msg != "" {
		return badRequest(msg)
	}
	if given {
		c.s.localHooks.Store(allow)
	}
	return c.settings()
}

// SetAllowLocalRequests sets the application setting "Allow requests to
// the local network from webhooks and integrations"
// (allow_local_requests_from_web_hooks_and_services), as an administrator
// does with PUT /api/v4/application/settings. When it is off, a hook to
// the machine itself, loopback, a private, link-local or shared address,
// or a name resolving to one, is refused when it is made or edited with
// the real service's answer, 422 {"message":"Invalid url given"}, and a
// delivery to one is not sent (Delivery.State DeliveryBlocked, with the
// reason in Error). It is on by default ([WithAllowLocalRequests]).
// Whatever it says, the fake never delivers to the cloud metadata
// addresses (169.254.0.0/16, fe80::/10, fd00:ec2::254, 100.100.100.200).
// Hooks already made stay; their deliveries are checked as they go.
func (s *Server) SetAllowLocalRequests(allow bool) { s.localHooks.Store(allow) }

// AllowLocalRequests reports the application setting
// allow_local_requests_from_web_hooks_and_services.
func (s *Server) AllowLocalRequests() bool { return s.localHooks.Load() }

// SettingsSeed is the application settings a [Seed] sets; a setting left
// out keeps its value.
type SettingsSeed struct {
	// AllowLocalRequestsFromWebHooksAndServices is
	// [Server.SetAllowLocalRequests].
	AllowLocalRequestsFromWebHooksAndServices *bool `json:"allow_local_requests_from_web_hooks_and_services,omitempty" yaml:"allow_local_requests_from_web_hooks_and_services,omitempty"`
}

// apply sets the settings the seed names.
func (seed *SettingsSeed) apply(s *Server) {
	if seed == nil {
		return
	}
	if v := seed.AllowLocalRequestsFromWebHooksAndServices; v != nil {
		s.SetAllowLocalRequests(*v)
	}
}
