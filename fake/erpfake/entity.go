package erpfake

import (
	"net/http"
	"strconv"

	"github.com/apitwin/apitwin/erp"
	"github.com/apitwin/apitwin/internal/fakekit"
)

// maxEntities is how many entities besides the default one the fake holds
// records of at once: the bound of records per kind holds across all of
// them, and this keeps the sum over entities cheap.
const maxEntities = 100

// badEntity is the ERP's refusal of an entity that is not a company's
// numeric id (its login API's words, reused for the header).
func badEntity() fakekit.Answer {
	return apiError(http.StatusForbidden, "Bad value for entity, must be the numeric ID of company.")
}

// requestEntity reads r's entity header: 1 when there is none, else a
// positive decimal int32, or ok false.
func requestEntity(r *http.Request) (int64, bool) {
	v := r.Header.Get(erp.EntityHeader)
	if v == "" {
		return 1, true
	}
	n, err := strconv.ParseInt(v, 10, 32)
	if err != nil || n < 1 || v[0] == '+' {
		return 0, false
	}
	return n, true
}

// inEntity makes st work in entity n until the returned func is called
// (with the state lock held all along): it then forgets the entity again
// if it holds nothing, so that a read of an unknown entity keeps nothing.
// ok is false when n is a new entity and maxEntities are already held.
func (st *state) inEntity(n int64) (leave func(), ok bool) {
	if n == 1 {
		return func() {}, true
	}
	r := st.entities[n]
	if r == nil {
		if len(st.entities) >= maxEntities {
			return nil, false
		}
		r = &entityRecords{}
		st.entities[n] = r
	}
	st.entityRecords = r
	return func() {
		if r.empty() {
			delete(st.entities, n)
		}
		st.entityRecords = st.home
	}, true
}

// eachEntity calls fn with the records of every entity.
func (st *state) eachEntity(fn func(*entityRecords)) {
	fn(st.home)
	for _, r := range st.entities {
		fn(r)
	}
}

// count is how many records of a kind all entities hold together.
func (st *state) count(n func(*entityRecords) int) int {
	total := 0
	st.eachEntity(func(r *entityRecords) { total += n(r) })
	return total
}

// inEntity is the entity the call works in.
func (c *call) inEntity() int64 {
	if c.entity == 0 {
		return 1
	}
	return c.entity
}
