package erp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"maps"
	"net/http"

	"github.com/apitwin/apitwin/internal/rest"
)

// User is a user of the ERP (an employee, or an external user bound to a
// third party).
type User struct {
	ID        ID     `json:"id"`
	Login     string `json:"login"`
	Lastname  string `json:"lastname"`
	Firstname string `json:"firstname"`
	Email     string `json:"email"`
	Job       string `json:"job"`
	// Admin is set for administrators, who have every permission.
	Admin    Bool `json:"admin"`
	Employee Bool `json:"employee"`
	// Enabled is false for a disabled user, who can neither log in nor use
	// an API key ("status", "statut" in older versions).
	Enabled          Bool   `json:"status"`
	OfficePhone      string `json:"office_phone"`
	Mobile           string `json:"user_mobile"`
	SupervisorID     ID     `json:"fk_user"` // the user's manager
	ThirdpartyID     ID     `json:"socid"`   // set for an external user
	Entity           ID     `json:"entity"`  // the company (multi-company setups)
	DateCreation     Time   `json:"datec"`   // created
	DateModification Time   `json:"datem"`   // last changed
	DateLastLogin    Time   `json:"datelastlogin"`
	Extra            Extra  `json:"-"` // fields this type does not model
}

var userKeys = keysOf[User]("statut")

// UnmarshalJSON decodes a user, keeping unknown fields in Extra.
func (u *User) UnmarshalJSON(b []byte) error {
	type plain User
	var w struct {
		*plain
		Status *Bool `json:"status"`
		Statut *Bool `json:"statut"`
	}
	w.plain = (*plain)(u)
	if err := decodeRecord(b, &w, userKeys, &u.Extra, nil); err != nil {
		return err
	}
	u.Enabled = firstOf(w.Status, w.Statut)
	return nil
}

// MarshalJSON encodes a user with its Extra fields.
func (u User) MarshalJSON() ([]byte, error) {
	type plain User
	return marshalRecord(plain(u), u.Extra)
}

func (u *User) recordID() ID { return u.ID }

// firstOf returns the first value set, or the zero value: the ERP renamed
// "statut" to "status" and different versions send one or both.
func firstOf[T any](vs ...*T) T {
	for _, v := range vs {
		if v != nil {
			return *v
		}
	}
	var zero T
	return zero
}

// ListUsers returns one page of users (sort fields t.rowid, t.login,
// t.lastname, …; filter on the llx_user columns).
//
// ERP API: GET /users
func (c *Client) ListUsers(ctx context.Context, opts *ListOptions) (*Page[User], error) {
	return list[User](ctx, c, "/users", opts, nil)
}

// AllUsers iterates the users a page at a time.
//
// ERP API: GET /users
func (c *Client) AllUsers(ctx context.Context, opts *ListOptions) iter.Seq2[*User, error] {
	return all[User](ctx, c, "/users", opts, nil)
}

// GetUser returns a user by id.
//
// ERP API: GET /users/{id}
func (c *Client) GetUser(ctx context.Context, id ID) (*User, error) {
	return do[User](ctx, c, http.MethodGet, "/users/"+id.String(), nil, nil)
}

// CreateUserRequest is the body of POST /users.
type CreateUserRequest struct {
	Login     string `json:"login"`
	Lastname  string `json:"lastname,omitempty"`
	Firstname string `json:"firstname,omitempty"`
	Email     string `json:"email,omitempty"`
	Job       string `json:"job,omitempty"`
	// Password lets the user log in to the web interface ("pass").
	Password string `json:"pass,omitempty"`
	Admin    Bool   `json:"admin,omitempty"`
	Employee *Bool  `json:"employee,omitempty"`
	// Extra sets fields this type does not model; the typed fields win.
	Extra map[string]any `json:"-"`
}

// MarshalJSON writes the request with its Extra fields.
func (r CreateUserRequest) MarshalJSON() ([]byte, error) {
	type plain CreateUserRequest
	return withExtra(plain(r), r.Extra)
}

// String leaves the password out, so a request printed in a log does not
// carry it.
func (r CreateUserRequest) String() string {
	type plain CreateUserRequest
	p := plain(r)
	if p.Password != "" {
		p.Password = rest.Redacted
	}
	if _, ok := p.Extra["pass"]; ok {
		p.Extra = maps.Clone(p.Extra)
		p.Extra["pass"] = rest.Redacted
	}
	return fmt.Sprintf("erp.CreateUserRequest%+v", p)
}

// GoString is String, for %#v.
func (r CreateUserRequest) GoString() string { return r.String() }

// LogValue logs the request without its password.
func (r CreateUserRequest) LogValue() slog.Value { return slog.StringValue(r.String()) }

// CreateUser creates a user and returns it. A login already taken is
// refused with ErrAlreadyExists.
//
// ERP API: POST /users, then GET /users/{id} when the
// ERP answers with the bare id
func (c *Client) CreateUser(ctx context.Context, req *CreateUserRequest) (*User, error) {
	if req == nil || req.Login == "" {
		return nil, errors.New("erp: CreateUser needs a login")
	}
	return create[User](ctx, c, "/users", req, req.Password, extraPassword(req.Extra))
}

// extraPassword is a password sent through a request's Extra map ("pass").
func extraPassword(extra map[string]any) string {
	s, _ := extra["pass"].(string)
	return s
}

// UpdateUserRequest is the body of PUT /users/{id}; nil fields are left as
// they are.
type UpdateUserRequest struct {
	Login     *string `json:"login,omitempty"`
	Lastname  *string `json:"lastname,omitempty"`
	Firstname *string `json:"firstname,omitempty"`
	Email     *string `json:"email,omitempty"`
	Job       *string `json:"job,omitempty"`
	Admin     *Bool   `json:"admin,omitempty"`
	Employee  *Bool   `json:"employee,omitempty"`
	// Enabled disables (false) or enables (true) the user.
	Enabled *Bool `json:"statut,omitempty"`
	// Password sets a new password for the web login ("pass").
	Password *string        `json:"pass,omitempty"`
	Extra    map[string]any `json:"-"`
}

// String leaves the password out, so a request printed in a log does not
// carry it.
func (r UpdateUserRequest) String() string {
	type plain UpdateUserRequest
	p := plain(r)
	if p.Password != nil {
		p.Password = Ptr(rest.Redacted)
	}
	b, _ := json.Marshal(p) // pointers shown by value, not by address
	return "erp.UpdateUserRequest" + string(b)
}

// GoString is String, for %#v.
func (r UpdateUserRequest) GoString() string { return r.String() }

// LogValue logs the request without its password.
func (r UpdateUserRequest) LogValue() slog.Value { return slog.StringValue(r.String()) }

// MarshalJSON writes the request with its Extra fields.
func (r UpdateUserRequest) MarshalJSON() ([]byte, error) {
	type plain UpdateUserRequest
	return withExtra(plain(r), r.Extra)
}

// UpdateUser changes a user and returns it as it now is.
//
// ERP API: PUT /users/{id}
func (c *Client) UpdateUser(ctx context.Context, id ID, req *UpdateUserRequest) (*User, error) {
	if req == nil {
		return nil, errors.New("erp: UpdateUser needs a request")
	}
	var pw string
	if req.Password != nil {
		pw = *req.Password
	}
	return do[User](ctx, c, http.MethodPut, "/users/"+id.String(), nil, req, pw, extraPassword(req.Extra))
}

// DeleteUser deletes a user; a user that does not exist is ErrNotFound.
//
// ERP API: DELETE /users/{id}
func (c *Client) DeleteUser(ctx context.Context, id ID) error {
	return c.deleteRecord(ctx, "/users/"+id.String())
}
