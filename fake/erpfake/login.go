package erpfake

import (
	"crypto/subtle"
	"net/http"
	"strconv"

	"github.com/apitwin/apitwin/internal/fakekit"
	"github.com/apitwin/apitwin/internal/jsonw"
)

// The API's own login and status, as the ERP's Login and Status API
// classes answer them.

// Version is the ERP version GET /status reports.
const Version = "21.0.0"

// msgWelcome is what a login through the API says after the user's login.
const msgWelcome = " - This is your token (recorded for your user). You can use it to make any REST API call, or enter it into the ERPAPIKEY field to use the API explorer."

// apiLogin answers GET|POST /login: a login and password for the user's
// API key, which the ERP makes (and keeps) when the user has none or reset
// is asked. It needs no API key; a refusal is 403 "Access denied", and an
// entity that is not a number 403 too, as the ERP answers them. GET takes
// the parameters from the query, POST from the JSON body (or the query).
func apiLogin(in *input) step {
	q := query(in.r)
	param := func(name string) string {
		if in.r.Method == http.MethodPost {
			if v, ok := in.body.str(name); ok {
				return v
			}
		}
		return q.Get(name)
	}
	login, password, entity, reset := param("login"), param("password"), param("entity"), param("reset")
	return func(c *call) fakekit.Answer {
		if entity != "" {
			if _, err := strconv.ParseInt(entity, 10, 32); err != nil {
				return apiError(http.StatusForbidden, "Bad value for entity, must be the numeric ID of company.")
			}
		}
		u := c.st.userByLogin(login)
		if u == nil || !u.enabled || u.password == "" || subtle.ConstantTimeCompare([]byte(password), []byte(u.password)) != 1 {
			return apiError(http.StatusForbidden, "Access denied")
		}
		renew := reset != "" && reset != "0"
		if u.apiKey == "" || renew {
			c.st.setKey(u, randomHex(20))
		}
		msg := "Welcome " + u.login + msgWelcome
		if renew {
			msg = "Welcome " + u.login + " - Token is new"
		}
		c.user = u
		b := append(c.buffer(), `{"success":{"code":200,"token":`...)
		b = jsonw.AppendString(b, u.apiKey)
		b = append(b, `,"entity":`...)
		entityID := c.num.int(1)
		b = entityID.appendJSON(b)
		b = append(b, `,"message":`...)
		b = jsonw.AppendString(b, msg)
		return c.written(append(b, "}}"...))
	}
}

// apiStatus answers GET /status: the ERP's version, and whether only
// logins are allowed (never, in the fake).
func apiStatus(*input) step {
	return func(c *call) fakekit.Answer {
		b := append(c.buffer(), `{"success":{"code":200,"erp_version":`...)
		b = jsonw.AppendString(b, Version)
		return c.written(append(b, `,"access_locked":"0"}}`...))
	}
}
