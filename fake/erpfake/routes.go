package erpfake

import (
	"net/http"
	"strings"
	"sync"

	"github.com/apitwin/apitwin/internal/fakekit"
)

// apiRoot is where the REST API lives.
const apiRoot = "/api/index.php"

// routeSet is the fake's route table and the description of its API that
// the explorer serves, built together so they cannot disagree.
type routeSet struct {
	routes *fakekit.Routes[*Server]
	ops    []apiOp
}

// knownAPI reports whether path (under the API root) names an API class
// the ERP has, by its first segment: /invoices/…, /explorer/…. The ERP
// includes a class's file by that segment, and answers a segment it has no
// file for with 501 before its router runs.
func (set *routeSet) knownAPI(path string) bool {
	rest, ok := strings.CutPrefix(path, apiRoot+"/")
	if !ok {
		return true // the API root itself: the router's own 404
	}
	class, _, _ := strings.Cut(rest, "/")
	if class == "" || class == "explorer" {
		return true
	}
	for _, op := range set.ops {
		if strings.HasPrefix(op.path, "/"+class+"/") || op.path == "/"+class {
			return true
		}
	}
	return false
}

// noAPIFile is the ERP's answer to a path whose first segment names no API
// class: its index.php prints this line as text with the status 501, before
// the REST layer (and its JSON errors) is reached.
func noAPIFile() fakekit.Answer {
	return fakekit.Answer{Status: http.StatusNotImplemented, Raw: []byte("API not found (failed to include API file)"), ContentType: "text/html; charset=UTF-8"}
}

// apiOp describes one API route for the explorer.
type apiOp struct {
	method, path, summary string
	params                []param
}

type param struct {
	name, in, typ, description string
	required                   bool
}

var (
	idParam   = param{name: "id", in: "path", typ: "integer", required: true, description: "Id of the record"}
	bodyParam = param{name: "request_data", in: "body", typ: "object", required: true, description: "The record's fields, as JSON"}
)

func listParams(extra ...param) []param {
	return append([]param{
		{name: "sortfield", in: "query", typ: "string", description: "Column to sort by, with its alias (t.rowid)"},
		{name: "sortorder", in: "query", typ: "string", description: "ASC or DESC"},
		{name: "limit", in: "query", typ: "integer", description: "Page size (default 100; 0 for no limit)"},
		{name: "page", in: "query", typ: "integer", description: "Page number, from 0"},
		{name: "sqlfilters", in: "query", typ: "string", description: "Filter, e.g. (t.ref:like:'SO%') and (t.price:>:10)"},
		{name: "pagination_data", in: "query", typ: "boolean", description: "Answer {data, pagination} with the total count"},
	}, extra...)
}

// routeTable is every route the fake serves, built once and shared by all
// instances. Its patterns are what InjectFault and RequestsTo take.
var routeTable = sync.OnceValue(func() *routeSet {
	set := &routeSet{routes: fakekit.NewRoutes[*Server]()}
	rt := set.routes
	api := func(method, path, summary string, params []param, op operation) {
		set.ops = append(set.ops, apiOp{method: method, path: path, summary: summary, params: params})
		rt.Handle(method+" "+apiRoot+path, func(s *Server, w http.ResponseWriter, r *http.Request) { s.serve(w, r, op) })
	}

	api("GET", "/users", "List users", listParams(), listOp(users, func(st *state) []*user { return st.users }))
	api("GET", "/users/{id}", "Get a user", []param{idParam}, byPath(getUser))
	api("POST", "/users", "Create a user (login required)", []param{bodyParam}, createUser)
	api("PUT", "/users/{id}", "Update a user", []param{idParam, bodyParam}, updateUser)
	api("DELETE", "/users/{id}", "Delete a user", []param{idParam}, byPath(deleteUser))

	api("GET", "/thirdparties", "List third parties", listParams(param{name: "mode", in: "query", typ: "integer",
		description: "1 customers, 2 prospects, 3 neither, 4 suppliers"}), listThirdparties)
	api("GET", "/thirdparties/{id}", "Get a third party", []param{idParam}, byPath(getThirdparty))
	api("POST", "/thirdparties", "Create a third party (name required)", []param{bodyParam}, createThirdparty)
	api("PUT", "/thirdparties/{id}", "Update a third party", []param{idParam, bodyParam}, updateThirdparty)
	api("DELETE", "/thirdparties/{id}", "Delete a third party that no invoice or order names (its contacts go with it)", []param{idParam}, byPath(deleteThirdparty))

	api("GET", "/contacts", "List contacts", listParams(param{name: "thirdparty_ids", in: "query", typ: "string",
		description: "Third party ids, comma-separated"}), listContacts)
	api("GET", "/contacts/{id}", "Get a contact", []param{idParam}, byPath(getContact))
	api("POST", "/contacts", "Create a contact (lastname required; socid names its third party)", []param{bodyParam}, createContact)
	api("PUT", "/contacts/{id}", "Update a contact", []param{idParam, bodyParam}, updateContact)
	api("DELETE", "/contacts/{id}", "Delete a contact", []param{idParam}, byPath(deleteContact))

	api("GET", "/products", "List products", listParams(param{name: "mode", in: "query", typ: "integer",
		description: "1 products only, 2 services only"}), listProducts)
	api("GET", "/products/{id}", "Get a product", []param{idParam}, byPath(getProduct))
	api("POST", "/products", "Create a product (ref, unique, and label required)", []param{bodyParam}, createProduct)
	api("PUT", "/products/{id}", "Update a product", []param{idParam, bodyParam}, updateProduct)
	api("DELETE", "/products/{id}", "Delete a product that no line uses", []param{idParam}, byPath(deleteProduct))

	thirdpartyIDs := param{name: "thirdparty_ids", in: "query", typ: "string", description: "Third party ids, comma-separated"}
	api("GET", "/invoices", "List invoices", listParams(thirdpartyIDs, param{name: "status", in: "query", typ: "string",
		description: "draft, unpaid, paid or cancelled"}), listInvoices)
	api("GET", "/invoices/{id}", "Get an invoice", []param{idParam}, byPath(getInvoice))
	api("POST", "/invoices", "Create a draft invoice (socid, type, lines)", []param{bodyParam}, createInvoice)
	api("POST", "/invoices/{id}/validate", "Validate a draft invoice: it gets its final ref", []param{idParam, bodyParam}, byPath(validateInvoice))
	api("PUT", "/invoices/{id}", "Update an invoice (ref_client, notes, dates)", []param{idParam, bodyParam}, updateInvoice)
	api("DELETE", "/invoices/{id}", "Delete a draft invoice", []param{idParam}, byPath(deleteInvoice))
	lineID := param{name: "lineid", in: "path", typ: "integer", required: true, description: "Id of the line"}
	api("GET", "/invoices/{id}/lines", "List the lines of an invoice", []param{idParam}, listLines(findInvoiceDoc))
	api("POST", "/invoices/{id}/lines", "Add a line to a draft invoice; answers the line's id", []param{idParam, bodyParam}, addLine(findInvoiceDoc))
	api("PUT", "/invoices/{id}/lines/{lineid}", "Change a line of a draft invoice (every value is set)", []param{idParam, lineID, bodyParam},
		updateLine(findInvoiceDoc, getInvoice))
	api("DELETE", "/invoices/{id}/lines/{lineid}", "Delete a line of a draft invoice", []param{idParam, lineID}, deleteLine(findInvoiceDoc, getInvoice))
	api("GET", "/invoices/{id}/payments", "List the payments of an invoice", []param{idParam}, byPath(listPayments))
	api("POST", "/invoices/{id}/payments", "Pay what remains to pay on an invoice (paymentid, closepaidinvoices, datepaye)",
		[]param{idParam, bodyParam}, addPayment)
	api("POST", "/invoices/{id}/settopaid", "Classify a validated invoice paid (close_code, close_note when payments do not cover it)",
		[]param{idParam, bodyParam}, setPaid)
	api("POST", "/invoices/{id}/settounpaid", "Classify a paid invoice unpaid again", []param{idParam}, byPath(setUnpaid))
	api("POST", "/invoices/paymentsdistributed", "One payment of several invoices (arrayofamounts, paymentid, closepaidinvoices)",
		[]param{bodyParam}, addDistributedPayment)
	set.ops = append(set.ops, apiOp{method: "POST", path: "/invoices/createfromorder/{orderid}",
		summary: "Create a draft invoice from an order", params: []param{{name: "orderid", in: "path", typ: "integer", required: true, description: "Id of the order"}}})

	api("GET", "/orders", "List orders", listParams(thirdpartyIDs), listOrders)
	api("GET", "/orders/{id}", "Get an order", []param{idParam}, byPath(getOrder))
	api("POST", "/orders", "Create a draft order (socid, lines)", []param{bodyParam}, createOrder)
	api("POST", "/orders/{id}/validate", "Validate a draft order: it gets its final ref", []param{idParam, bodyParam}, byPath(validateOrder))
	api("POST", "/orders/{id}/close", "Close a validated order", []param{idParam, bodyParam}, byPath(closeOrder))
	api("POST", "/orders/{id}/reopen", "Reopen a closed order (validated again); answers 1", []param{idParam}, byPath(reopenOrder))
	api("PUT", "/orders/{id}", "Update an order (ref_client, notes, dates)", []param{idParam, bodyParam}, updateOrder)
	api("DELETE", "/orders/{id}", "Delete an order", []param{idParam}, byPath(deleteOrder))
	api("GET", "/orders/{id}/lines", "List the lines of an order", []param{idParam}, listLines(findOrderDoc))
	api("POST", "/orders/{id}/lines", "Add a line to a draft order; answers the line's id", []param{idParam, bodyParam}, addLine(findOrderDoc))
	api("PUT", "/orders/{id}/lines/{lineid}", "Change a line of a draft order (every value is set)", []param{idParam, lineID, bodyParam},
		updateLine(findOrderDoc, getOrder))
	api("DELETE", "/orders/{id}/lines/{lineid}", "Delete a line of a draft order", []param{idParam, lineID}, deleteLine(findOrderDoc, getOrder))

	explorer := func(s *Server, w http.ResponseWriter, r *http.Request) { s.serveExplorer(w, r, set.ops) }
	rt.Handle("GET "+apiRoot+"/explorer", explorer)
	rt.Handle("GET "+apiRoot+"/explorer/{$}", explorer)
	rt.Handle("GET "+apiRoot+"/explorer/swagger.json", explorer)

	rt.Handle("GET /{$}", func(s *Server, w http.ResponseWriter, r *http.Request) { s.servePage(w, r) })
	rt.Handle("GET /index.php", func(s *Server, w http.ResponseWriter, r *http.Request) { s.servePage(w, r) })
	rt.Handle("POST /index.php", func(s *Server, w http.ResponseWriter, r *http.Request) { s.serveLogin(w, r) })

	rt.NotFound(func(s *Server, w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != apiRoot && !strings.HasPrefix(r.URL.Path, apiRoot+"/") {
			fakekit.WriteAnswer(w, webNotFound())
			return
		}
		if !s.APIEnabled() {
			fakekit.WriteAnswer(w, moduleOff())
			return
		}
		if orderID, ok := strings.CutPrefix(r.URL.Path, apiRoot+"/invoices/createfromorder/"); ok && r.Method == http.MethodPost && !strings.Contains(orderID, "/") {
			s.serve(w, r, createInvoiceFromOrder(orderID))
			return
		}
		if !set.knownAPI(r.URL.Path) {
			fakekit.WriteAnswer(w, noAPIFile())
			return
		}
		if allowed := rt.Allowed(r); len(allowed) > 0 {
			a := apiError(http.StatusMethodNotAllowed, "")
			a.Header = http.Header{"Allow": {strings.Join(allowed, ", ")}}
			fakekit.WriteAnswer(w, a)
			return
		}
		fakekit.WriteAnswer(w, apiError(http.StatusNotFound, ""))
	})
	return set
})
