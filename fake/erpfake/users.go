package erpfake

import (
	"encoding/json"
	"net/http"
	"strings"
	"time"
)

// userJSON is a user as the API shows it. The shapes the fake answers with
// are its own, written from the ERP's, not the client's types, so that the
// client's tests against the fake check the client's field names.
type userJSON struct {
	ID            json.RawMessage `json:"id"`
	Entity        json.RawMessage `json:"entity"`
	Login         string          `json:"login"`
	Lastname      string          `json:"lastname"`
	Firstname     string          `json:"firstname"`
	Email         string          `json:"email"`
	Job           string          `json:"job"`
	Admin         json.RawMessage `json:"admin"`
	Employee      json.RawMessage `json:"employee"`
	Statut        json.RawMessage `json:"statut"`
	Status        json.RawMessage `json:"status"`
	OfficePhone   string          `json:"office_phone"`
	UserMobile    string          `json:"user_mobile"`
	FkUser        json.RawMessage `json:"fk_user"`
	Socid         json.RawMessage `json:"socid"`
	Datec         json.RawMessage `json:"datec"`
	Datem         json.RawMessage `json:"datem"`
	Datelastlogin json.RawMessage `json:"datelastlogin"`
	Gender        string          `json:"gender"`
	ArrayOptions  map[string]any  `json:"array_options"`
}

func (c *call) renderUser(u *user) any {
	n := c.num
	return &userJSON{
		ID: n.id(u.id), Entity: n.id(1), Login: u.login, Lastname: u.lastname, Firstname: u.firstname, Email: u.email, Job: u.job,
		Admin: n.flag(u.admin), Employee: n.flag(u.employee), Statut: n.flag(u.enabled), Status: n.flag(u.enabled),
		FkUser: json.RawMessage("null"), Socid: json.RawMessage("null"),
		Datec: n.time(u.datec), Datem: n.time(u.datem), Datelastlogin: n.time(u.lastLogin), ArrayOptions: map[string]any{},
	}
}

var users = &collection[*user]{
	noun:        "User",
	defaultSort: "t.rowid",
	render:      (*call).renderUser,
	fields: map[string]fieldDef[*user]{
		"rowid":         intField(false, func(u *user) int64 { return u.id }),
		"id":            intField(false, func(u *user) int64 { return u.id }),
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

func (c *call) listUsers() answer { return listAnswer(c, c.st.users, users, nil) }

func (c *call) findUser() (*user, *answer) { return findByPath(c, c.st.users, "User") }

func (c *call) getUser() answer {
	u, fail := c.findUser()
	if fail != nil {
		return *fail
	}
	return ok(c.renderUser(u))
}

// mayManageUsers is the ERP's user-management permission: administrators
// have it; the fake gives it to no one else.
func (c *call) mayManageUsers(what string) *answer {
	if c.user.admin {
		return nil
	}
	a := apiError(http.StatusForbidden, "User "+what+" not allowed for login "+c.user.login)
	return &a
}

func (c *call) createUser() answer {
	if fail := c.mayManageUsers("creation"); fail != nil {
		return *fail
	}
	b := c.body
	login, _ := b.str("login")
	if strings.TrimSpace(login) == "" {
		return badRequest("login field missing")
	}
	f := userFields{login: strings.TrimSpace(login)}
	f.password, _ = b.str("pass")
	f.lastname, _ = b.str("lastname")
	f.firstname, _ = b.str("firstname")
	f.email, _ = b.str("email")
	f.job, _ = b.str("job")
	f.admin, _ = b.flag("admin")
	employee, hasEmployee := b.flag("employee")
	if msg := b.problem(); msg != "" {
		return badRequest(msg)
	}
	f.employee = employee || !hasEmployee
	if c.st.userByLogin(f.login) != nil {
		return apiError(http.StatusInternalServerError, "Error creating", "ErrorLoginAlreadyExists")
	}
	u := c.st.addUser(f)
	return c.created(u.id, c.renderUser(u))
}

func (c *call) updateUser() answer {
	if fail := c.mayManageUsers("modification"); fail != nil {
		return *fail
	}
	u, fail := c.findUser()
	if fail != nil {
		return *fail
	}
	b := c.body
	login, hasLogin := b.str("login")
	pass, hasPass := b.str("pass")
	lastname, hasLast := b.str("lastname")
	firstname, hasFirst := b.str("firstname")
	email, hasEmail := b.str("email")
	job, hasJob := b.str("job")
	admin, hasAdmin := b.flag("admin")
	employee, hasEmployee := b.flag("employee")
	enabled, hasEnabled := b.flag("statut")
	if !hasEnabled {
		enabled, hasEnabled = b.flag("status")
	}
	if msg := b.problem(); msg != "" {
		return badRequest(msg)
	}
	if hasLogin {
		login = strings.TrimSpace(login)
		if login == "" {
			return badRequest("login field missing")
		}
		if other := c.st.userByLogin(login); other != nil && other != u {
			return apiError(http.StatusInternalServerError, "Error updating", "ErrorLoginAlreadyExists")
		}
		u.login = login
	}
	set(&u.password, pass, hasPass)
	set(&u.lastname, lastname, hasLast)
	set(&u.firstname, firstname, hasFirst)
	set(&u.email, email, hasEmail)
	set(&u.job, job, hasJob)
	set(&u.admin, admin, hasAdmin)
	set(&u.employee, employee, hasEmployee)
	set(&u.enabled, enabled, hasEnabled)
	u.datem = c.st.now()
	return ok(c.renderUser(u))
}

func set[T any](dst *T, v T, given bool) {
	if given {
		*dst = v
	}
}

func (c *call) deleteUser() answer {
	if fail := c.mayManageUsers("deletion"); fail != nil {
		return *fail
	}
	u, fail := c.findUser()
	if fail != nil {
		return *fail
	}
	if u == c.user {
		return apiError(http.StatusForbidden, "Users cannot delete their own account")
	}
	c.st.deleteUser(u)
	return ok(map[string]any{"success": map[string]any{"code": 200, "message": "User deleted"}})
}

// created answers a create: the new record, or (WithBareCreateIDs) its
// bare id, as most versions of the ERP do.
func (c *call) created(id int64, record any) answer {
	if c.s.cfg.bareCreateIDs {
		return ok(id)
	}
	return ok(record)
}
