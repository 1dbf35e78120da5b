package sourcehostfake

import (
	"encoding/json"
	"net/http"
	"regexp"
	"slices"
	"strconv"

	"github.com/apitwin/apitwin/internal/fakekit"
)

// ciVariable is a project's CI/CD variable. Its value is a secret when it
// is masked: the request log never shows it (SecretFields names "value"),
// and no refusal quotes it.
type ciVariable struct {
	id          int64
	key         string
	value       string
	varType     string // env_var or file
	scope       string // environment_scope, "*" for all
	description string
	protected   bool
	masked      bool
	hidden      bool // masked and hidden: its value is never answered
	raw         bool
}

// The real service's rules for variables (Ci::HasVariable, Ci::Maskable).
var (
	variableKeyRE = regexp.MustCompile(`^[a-zA-Z0-9_]+$`)
	// A masked value that is expanded: at least 8 characters of the
	// Base64 alphabet and @ : . ~ -, so that a job's log can find it.
	maskableRE = regexp.MustCompile(`^[a-zA-Z0-9_+=/@:.~-]{8,}$`)
	// A masked raw value: at least 8 characters, none of them a space.
	maskableRawRE = regexp.MustCompile(`^\S{8,}$`)
)

const (
	maxVariableKey   = 255
	maxVariableValue = 10_000
)

var variableTypes = []string{"env_var", "file"}

// variableJSON is a variable as the API answers it.
type variableJSON struct {
	VariableType     string  `json:"variable_type"`
	Key              string  `json:"key"`
	Value            *string `json:"value"` // null when hidden
	Hidden           bool    `json:"hidden"`
	Protected        bool    `json:"protected"`
	Masked           bool    `json:"masked"`
	Raw              bool    `json:"raw"`
	EnvironmentScope string  `json:"environment_scope"`
	Description      *string `json:"description"`
}

func renderVariable(v *ciVariable) variableJSON {
	out := variableJSON{VariableType: v.varType, Key: v.key, Hidden: v.hidden, Protected: v.protected, Masked: v.masked,
		Raw: v.raw, EnvironmentScope: v.scope}
	if !v.hidden {
		out.Value = &v.value
	}
	if v.description != "" {
		out.Description = &v.description
	}
	return out
}

// variablesProject is the route's project, if the caller may manage its
// variables: maintainers and above, as the real service's
// admin_cicd_variables.
func (c *call) variablesProject() (*project, *fakekit.Answer) {
	pr, fail := c.project()
	if fail != nil {
		return nil, fail
	}
	if fail := c.atLeast(pr, Maintainer); fail != nil {
		return nil, fail
	}
	return pr, nil
}

func (c *call) listVariables() fakekit.Answer {
	pr, fail := c.variablesProject()
	if fail != nil {
		return *fail
	}
	page, fail := paginate(c, pr.variables)
	if fail != nil {
		return *fail
	}
	return ok(renderAll(page, renderVariable))
}

// findVariable is the route's {key} variable, in the environment scope
// filter[environment_scope] names (in a JSON body, {"filter":
// {"environment_scope": …}}, as GitLab's Go client sends it); without a
// filter a key in several scopes is 409, as the real service answers.
func (c *call) findVariable(pr *project) (*ciVariable, *fakekit.Answer) {
	key := c.r.PathValue("key")
	scope, filtered := c.p.str("filter[environment_scope]")
	if raw, _, ok := c.p.lookup("filter"); ok && raw != nil && !filtered {
		var f struct {
			EnvironmentScope *string `json:"environment_scope"`
		}
		if json.Unmarshal(raw, &f) == nil && f.EnvironmentScope != nil {
			scope, filtered = *f.EnvironmentScope, true
		}
	}
	var found []*ciVariable
	for _, v := range pr.variables {
		if v.key == key && (!filtered || v.scope == scope) {
			found = append(found, v)
		}
	}
	switch len(found) {
	case 0:
		return nil, errAnswer(notFound("Variable"))
	case 1:
		return found[0], nil
	}
	return nil, errAnswer(message(http.StatusConflict,
		"There are multiple variables with provided parameters. Please use 'filter[environment_scope]'"))
}

func (c *call) getVariable() fakekit.Answer {
	pr, fail := c.variablesProject()
	if fail != nil {
		return *fail
	}
	v, fail := c.findVariable(pr)
	if fail != nil {
		return *fail
	}
	return ok(renderVariable(v))
}

// readVariable sets into v what the request gives of a variable; a
// parameter missing leaves v's as it is.
func (c *call) readVariable(v *ciVariable, creating bool) {
	p := c.p
	if creating {
		v.key = p.required("key")
		v.value = p.required("value")
	} else if s, ok := p.str("value"); ok {
		v.value = s
	}
	if t, ok := p.oneOf("variable_type", variableTypes...); ok {
		v.varType = t
	}
	for _, f := range []struct {
		name string
		dst  *bool
	}{{"protected", &v.protected}, {"masked", &v.masked}, {"raw", &v.raw}} {
		if b, ok := p.boolean(f.name); ok {
			*f.dst = b
		}
	}
	if creating {
		if b, ok := p.boolean("masked_and_hidden"); ok && b {
			v.masked, v.hidden = true, true
		}
	}
	if s, ok := p.str("environment_scope"); ok && s != "" {
		v.scope = s
	}
	if s, ok := p.str("description"); ok {
		v.description = s
	}
}

// variableProblems are the real service's validation errors of v, by
// field; none quotes the value.
func variableProblems(v *ciVariable) map[string][]string {
	bad := map[string][]string{}
	switch {
	case len(v.key) > maxVariableKey:
		bad["key"] = append(bad["key"], "is too long (maximum is "+strconv.Itoa(maxVariableKey)+" characters)")
	case !variableKeyRE.MatchString(v.key):
		bad["key"] = append(bad["key"], "can contain only letters, digits and '_'.")
	}
	if len(v.value) > maxVariableValue {
		bad["value"] = append(bad["value"], "is too long (maximum is "+strconv.Itoa(maxVariableValue)+" characters)")
	}
	if v.masked && (v.raw && !maskableRawRE.MatchString(v.value) || !v.raw && !maskableRE.MatchString(v.value)) {
		bad["value"] = append(bad["value"], "is invalid")
	}
	if len(v.scope) > maxVariableKey {
		bad["environment_scope"] = append(bad["environment_scope"], "is too long (maximum is "+strconv.Itoa(maxVariableKey)+" characters)")
	}
	if len(v.description) > maxVariableKey {
		bad["description"] = append(bad["description"], "is too long (maximum is "+strconv.Itoa(maxVariableKey)+" characters)")
	}
	return bad
}

// taken reports whether another variable of pr has v's key in v's scope.
func (pr *project) variableTaken(v *ciVariable) bool {
	return slices.ContainsFunc(pr.variables, func(o *ciVariable) bool { return o != v && o.key == v.key && o.scope == v.scope })
}

func (c *call) createVariable() fakekit.Answer {
	pr, fail := c.variablesProject()
	if fail != nil {
		return *fail
	}
	v := &ciVariable{varType: "env_var", scope: "*"}
	c.readVariable(v, true)
	if msg := c.p.problem(); msg != "" {
		return badRequest(msg)
	}
	bad := variableProblems(v)
	if pr.variableTaken(v) {
		bad["key"] = append(bad["key"], "("+v.key+") has already been taken")
	}
	if len(bad) > 0 {
		return invalid(http.StatusBadRequest, bad)
	}
	v.id = c.st.next("variable")
	pr.variables = append(pr.variables, v)
	return created(renderVariable(v))
}

func (c *call) updateVariable() fakekit.Answer {
	pr, fail := c.variablesProject()
	if fail != nil {
		return *fail
	}
	old, fail := c.findVariable(pr)
	if fail != nil {
		return *fail
	}
	v := *old
	c.readVariable(&v, false)
	if msg := c.p.problem(); msg != "" {
		return badRequest(msg)
	}
	bad := variableProblems(&v)
	if pr.variableTaken(&v) && v.scope != old.scope {
		bad["key"] = append(bad["key"], "("+v.key+") has already been taken")
	}
	if len(bad) > 0 {
		return invalid(http.StatusBadRequest, bad)
	}
	*old = v
	return ok(renderVariable(old))
}

func (c *call) deleteVariable() fakekit.Answer {
	pr, fail := c.variablesProject()
	if fail != nil {
		return *fail
	}
	v, fail := c.findVariable(pr)
	if fail != nil {
		return *fail
	}
	pr.variables = slices.DeleteFunc(pr.variables, func(x *ciVariable) bool { return x == v })
	c.s.removed("variable", 1)
	return fakekit.Answer{Status: http.StatusNoContent}
}
