package sourcehostfake

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/apitwin/apitwin/internal/fakekit"
)

// Keyset pagination, as the real service serves it where it has it:
// pagination=keyset answers the first per_page records with a Link header
// whose only link, rel="next", carries the position after the page's last
// record; no page numbers and no totals. Project jobs (newest first),
// users (by id, name, username, created_at or updated_at, either way) and
// groups (by name) carry a cursor, what the real service writes: base64
// (URL alphabet) of {"id":"<last id>","_kd":"n"}, with the order's column
// beside the id in an order other than id (idCursor, keyCursor); a
// repository's tree, a page_token (the last entry's id, pageToken);
// projects, id_after or id_before (idBound). keyedPage serves them all.

// keysetRefused is the real service's answer to keyset pagination in an
// order it cannot walk.
func keysetRefused() *fakekit.Answer {
	return errAnswer(fakekit.Answer{Status: http.StatusMethodNotAllowed,
		Body: map[string]any{"error": "Keyset pagination is not yet available for this type of request"}})
}

// keysetOrder checks that the request asks for keyset pagination in an
// order the real service walks: order_by id (the default) and a sort of
// sorts (the first the default); it reports whether keyset pagination was
// asked for, and whether the order is descending.
func (c *call) keysetOrder(sorts ...string) (keyset, desc bool, _ *fakekit.Answer) {
	mode, _ := c.p.oneOf("pagination", "offset", "keyset")
	if msg := c.p.problem(); msg != "" {
		return false, false, errAnswer(badRequest(msg))
	}
	if mode != "keyset" {
		return false, false, nil
	}
	if by, given := c.p.str("order_by"); given && by != "id" {
		return true, false, keysetRefused()
	}
	dir, given := c.p.str("sort")
	if !given {
		dir = sorts[0]
	}
	if !slices.Contains(sorts, dir) {
		return true, false, keysetRefused()
	}
	return true, dir == "desc", nil
}

// cursor is the position a keyset page starts after.
type cursor struct {
	Name      string `json:"name,omitempty"`       // groups' and users' by name (keyedPage)
	Username  string `json:"username,omitempty"`   // users' by username
	CreatedAt string `json:"created_at,omitempty"` // users' by created_at (cursorTime)
	UpdatedAt string `json:"updated_at,omitempty"` // users' by updated_at (cursorTime)
	ID        string `json:"id"`
	Direction string `json:"_kd"` // "n": the next page
}

// maxCursor bounds the cursor parameter read, well above any the fake
// writes.
const maxCursor = 256

func encodeCursor(id int64) string {
	b, _ := json.Marshal(cursor{ID: strconv.FormatInt(id, 10), Direction: "n"})
	return base64.URLEncoding.EncodeToString(b)
}

// decodeCursor reads a cursor: the id to start after.
func decodeCursor(s string) (int64, bool) {
	cur, ok := readCursor(s)
	if !ok {
		return 0, false
	}
	id, err := strconv.ParseInt(cur.ID, 10, 64)
	return id, err == nil && id > 0
}

// readCursor reads a cursor the fake wrote, in either base64 alphabet's
// padding.
func readCursor(s string) (cursor, bool) {
	var cur cursor
	if len(s) > maxCursor {
		return cur, false
	}
	b, err := base64.URLEncoding.DecodeString(s)
	if err != nil {
		if b, err = base64.RawURLEncoding.DecodeString(s); err != nil {
			return cur, false
		}
	}
	return cur, json.Unmarshal(b, &cur) == nil && cur.Direction == "n"
}

// keyset is how a list walks its keyset pages: the parameter that
// carries the position (cursor, page_token, id_after, id_before), where
// a page starts for the value given (or the answer refusing it), the value
// that names the position after a page's last item, and what else the
// next page's query sets (link, if any).
type keyset[T any] struct {
	param string
	start func(value string) (int, *fakekit.Answer)
	next  func(last T) string
	link  func(q url.Values)
}

// keyedPage is the page of items (sorted in the walk's order) after the
// position the request gives in k.param, per_page of them, with a Link to
// the next page while there is one: every keyset pagination the fake
// serves (see the top of this file).
func keyedPage[T any](c *call, items []T, k keyset[T]) ([]T, *fakekit.Answer) {
	_, perPage, fail := c.pageParams()
	if fail != nil {
		return nil, fail
	}
	start := 0
	if s, given := c.p.str(k.param); given {
		if start, fail = k.start(s); fail != nil {
			return nil, fail
		}
	}
	end := start + int(min(perPage, int64(len(items)-start)))
	page := items[start:end]
	if end < len(items) && len(page) > 0 {
		c.linkNext(perPage, k.param, k.next(page[len(page)-1]), k.link)
	} else {
		c.linkNext(perPage, "", "", nil)
	}
	return page, nil
}

// idCursor walks items (in id order, descending when desc) by a cursor of
// the id alone: project jobs.
func idCursor[T any](items []T, id func(T) int64, desc bool) keyset[T] {
	return keyset[T]{param: "cursor", next: func(last T) string { return encodeCursor(id(last)) },
		start: func(s string) (int, *fakekit.Answer) {
			if s == "" {
				return 0, nil
			}
			after, ok := decodeCursor(s)
			if !ok {
				return 0, errAnswer(badRequest("cursor is invalid"))
			}
			if i := slices.IndexFunc(items, func(it T) bool { return desc && id(it) < after || !desc && id(it) > after }); i >= 0 {
				return i, nil
			}
			return len(items), nil
		}}
}

// groupKeysetPage is the page of groups (in name order, ascending), for an
// anonymous caller, after the request's cursor, per_page of them, with a
// Link to the next page while there is one: the real service's
// cursor-based keyset pagination of groups, which walks them by name
// ascending alone (another order_by or sort is 405). The cursor is base64
// of {"name":…,"id":…,"_kd":"n"}.
func groupKeysetPage(c *call, items []*namespace) ([]*namespace, *fakekit.Answer) {
	if by, given := c.p.str("order_by"); given && by != "name" {
		return nil, keysetRefused()
	}
	if dir, given := c.p.str("sort"); given && dir != "asc" {
		return nil, keysetRefused()
	}
	key := func(g *namespace) cursor { return cursor{Name: g.name, ID: strconv.FormatInt(g.id, 10)} }
	return keyedPage(c, items, keyCursor(items, key, func(cur cursor) (func(*namespace) bool, bool) {
		id, err := strconv.ParseInt(cur.ID, 10, 64)
		if err != nil || cur.Name == "" {
			return nil, false
		}
		name := strings.ToLower(cur.Name)
		return func(g *namespace) bool {
			n := strings.ToLower(g.name)
			return n > name || n == name && g.id > id
		}, true
	}))
}

// keyCursor walks items (sorted in the walk's order) by a cursor of
// the order's column beside the id that breaks its ties, key of an
// item: the real service's cursor-based keyset pagination in an order
// other than id alone. after reads a cursor into "comes after it in the
// walk" (false for a cursor the order cannot use: 400 "cursor is
// invalid", as for one the fake did not write).
func keyCursor[T any](items []T, key func(T) cursor, after func(cursor) (func(T) bool, bool)) keyset[T] {
	return keyset[T]{param: "cursor",
		next: func(last T) string {
			cur := key(last)
			cur.Direction = "n"
			b, _ := json.Marshal(cur)
			return base64.URLEncoding.EncodeToString(b)
		},
		start: func(s string) (int, *fakekit.Answer) {
			if s == "" {
				return 0, nil
			}
			cur, ok := readCursor(s)
			var past func(T) bool
			if ok {
				past, ok = after(cur)
			}
			if !ok {
				return 0, errAnswer(badRequest("cursor is invalid"))
			}
			if i := slices.IndexFunc(items, past); i >= 0 {
				return i, nil
			}
			return len(items), nil
		}}
}

// pageToken walks items by the token of the item a page starts after
// (page_token): the keyset pagination the real service serves for a
// repository's tree, whose token is an entry's id. A token no item has is
// 400.
func pageToken[T any](items []T, token func(T) string) keyset[T] {
	return keyset[T]{param: "page_token", next: token,
		start: func(s string) (int, *fakekit.Answer) {
			if s == "" {
				return 0, nil
			}
			i := slices.IndexFunc(items, func(it T) bool { return token(it) == s })
			if i < 0 {
				return 0, errAnswer(badRequest("page_token is invalid"))
			}
			return i + 1, nil
		}}
}

// linkNext sets a keyset page's headers: X-Per-Page, and when name is
// given a Link, rel="next" only, to the request's path and query without
// page, with pagination=keyset, per_page, and name set to value, and what
// more sets (if not nil).
func (c *call) linkNext(perPage int64, name, value string, more func(q url.Values)) {
	h := c.header
	h.Set("X-Per-Page", strconv.FormatInt(perPage, 10))
	if name == "" {
		return
	}
	q := c.r.URL.Query()
	q.Del("page")
	q.Set("pagination", "keyset")
	q.Set("per_page", strconv.FormatInt(perPage, 10))
	q.Set(name, value)
	if more != nil {
		more(q)
	}
	u := url.URL{Path: c.r.URL.Path, RawQuery: q.Encode()}
	h.Set("Link", "<"+c.base+u.String()+`>; rel="next"`)
}
