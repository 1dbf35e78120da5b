package erpfake

import (
	"net/http"
	"strings"
	"time"

	"github.com/apitwin/apitwin/internal/fakekit"
)

func (c *call) renderUser(u *user) []byte { return render(c, (*call).appendUser, u) }

var users = &collection[*user]{
	noun:        "User",
	defaultSort: "t.rowid",
	write:       (*call).appendUser,
	fields: map[string]fieldDef[*user]{
		"rowid":         idField(func(u *user) int64 { return u.id }),
		"id":            idField(func(u *user) int64 { return u.id }),
		"login":         textField(func(u *user) string { return u.login }),
		"lastname":      textField(func(u *user) string { return u.lastname }),
		"firstname":     textField(func(u *user) string { return u.firstname }),
		"email":         textField(func(u *user) string { return u.email }),
		"job":           textField(func(u *user) string { return u.job }),
		"admin":         boolField(func(u *user) bool { return u.admin }),
		"employee":      boolField(func(u *user) bool { return u.employee }),
		"statut":        boolField(func(u *user) bool { return u.enabled }),
		"status":        boolField(func(u *user) bool { return u.enabled }),
		"datec":         timeField(func(u *user) time.Time { return u.datec }),
		"tms":           timeField(func(u *user) time.Time { return u.datem }),
		"datelastlogin": timeField(func(u *user) time.Time { return u.lastLogin }),
	},
}

// mayManageUsers is the ERP's user-management permission: administrators
// have it; the fake gives it to no one else.
// It answers the ERP's refusal, msg.
func (c *call) mayManageUsers(msg string) *fakekit.Answer {
	if c.user.admin {
		return nil
	}
	a := apiError(http.StatusForbidden, msg)
	return &a
}

// readOnlyUserFields are the properties of a user the API never sets: the
// ERP refuses a create or an update that carries one with 405.
var readOnlyUserFields = []string{"pass_crypted", "pass_indatabase", "pass_indatabase_crypted", "pass_temp", "api_key"}

// readOnlyField answers the refusal of the first read-only property b
// carries, or nil.
func readOnlyField(b *body) *fakekit.Answer {
	for _, f := range readOnlyUserFields {
		if _, given := b.fields[f]; given {
			a := apiError(http.StatusMethodNotAllowed, "The property "+f+" can't be set/modified using the APIs")
			return &a
		}
	}
	return nil
}

func getUser(c *call, id int64) fakekit.Answer {
	u, fail := findByID(c.st.users, id, "User")
	if fail != nil {
		return *fail
	}
	return okJSON(c.renderUser(u))
}

// userPatch is what a create or an update of a user may set.
type userPatch struct {
	login, password, lastname, firstname, email, job opt[string]
	admin, employee, enabled                         opt[bool]
}

func readUserPatch(b *body) userPatch {
	p := userPatch{login: b.optStr("login"), password: b.optStr("pass"), lastname: b.optStr("lastname"),
		firstname: b.optStr("firstname"), email: b.optStr("email"), job: b.optStr("job"),
		admin: b.optFlag("admin"), employee: b.optFlag("employee"), enabled: b.optFlag("statut")}
	if !p.enabled.set {
		p.enabled = b.optFlag("status")
	}
	p.login.v = strings.TrimSpace(p.login.v)
	return p
}

func createUser(in *input) step {
	p := readUserPatch(in.body)
	return func(c *call) fakekit.Answer {
		if fail := c.mayManageUsers("User creation not allowed for login " + c.user.login); fail != nil {
			return *fail
		}
		if fail := readOnlyField(in.body); fail != nil {
			return *fail
		}
		if p.login.v == "" {
			return badRequest("login field missing")
		}
		if msg := in.body.problem(); msg != "" {
			return badRequest(msg)
		}
		if c.st.userByLogin(p.login.v) != nil {
			return apiError(http.StatusInternalServerError, "Error creating", "ErrorLoginAlreadyExists")
		}
		if fail := c.full("user", 0, "Error creating"); fail != nil {
			return *fail
		}
		u := c.st.addUser(userFields{login: p.login.v, password: p.password.v, lastname: p.lastname.v, firstname: p.firstname.v,
			email: p.email.v, job: p.job.v, admin: p.admin.v, employee: p.employee.v || !p.employee.set})
		return c.created(u.id, c.renderUser(u))
	}
}

func updateUser(in *input) step {
	id, fail := in.pathID()
	if fail != nil {
		return fails(*fail)
	}
	p := readUserPatch(in.body)
	return func(c *call) fakekit.Answer {
		if fail := c.mayManageUsers("User update not allowed"); fail != nil {
			return *fail
		}
		u, fail := findByID(c.st.users, id, "Account")
		if fail != nil {
			return *fail
		}
		if fail := readOnlyField(in.body); fail != nil {
			return *fail
		}
		if msg := in.body.problem(); msg != "" {
			return badRequest(msg)
		}
		if p.admin.set && !p.admin.v && u.admin {
			// The ERP lets no one take the admin flag away through the
			// API, which also keeps the last administrator one.
			return apiError(http.StatusForbidden, "Reseting the admin status of a user is not possible using the API")
		}
		if u == c.user && p.enabled.set && !p.enabled.v {
			return apiError(http.StatusForbidden, "Users cannot disable their own account")
		}
		if p.login.set {
			if p.login.v == "" {
				return badRequest("login field missing")
			}
			if other := c.st.userByLogin(p.login.v); other != nil && other != u {
				return apiError(http.StatusInternalServerError, "Error updating", "ErrorLoginAlreadyExists")
			}
		}
		p.login.to(&u.login)
		p.password.to(&u.password)
		p.lastname.to(&u.lastname)
		p.firstname.to(&u.firstname)
		p.email.to(&u.email)
		p.job.to(&u.job)
		p.admin.to(&u.admin)
		p.employee.to(&u.employee)
		p.enabled.to(&u.enabled)
		u.datem = c.st.now()
		return okJSON(c.renderUser(u))
	}
}

func deleteUser(c *call, id int64) fakekit.Answer {
	if fail := c.mayManageUsers("Not allowed"); fail != nil {
		return *fail
	}
	u, fail := findByID(c.st.users, id, "User")
	if fail != nil {
		return *fail
	}
	if u == c.user {
		return apiError(http.StatusForbidden, "Users cannot delete their own account")
	}
	c.st.deleteUser(u)
	return ok(map[string]any{"success": map[string]any{"code": 200, "message": "User deleted"}})
}
