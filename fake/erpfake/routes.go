package erpfake

import (
	"fmt"
	"net/http"
	"strings"
	"sync"

	"github.com/apitwin/apitwin/internal/apitable"
	"github.com/apitwin/apitwin/internal/fakekit"
)

// apiRoot is where the REST API lives (apitable.ERP's Root).
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

func loginParams(in string) []param {
	return []param{
		{name: "login", in: in, typ: "string", required: true, description: "User login"},
		{name: "password", in: in, typ: "string", required: true, description: "User password"},
		{name: "entity", in: in, typ: "string", description: "Entity (company) id; empty: 1"},
		{name: "reset", in: in, typ: "integer", description: "1: a new key, the one before stops working"},
	}
}

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

// endpoint is how the fake serves one endpoint of the ERP's REST API, and
// how its explorer describes it.
type endpoint struct {
	summary string
	params  []param
	op      operation
	// opOf is the operation of a request, for the rows that read the
	// path before the operation is made.
	opOf func(*http.Request) operation
	// explorer: the row is one of the explorer's paths (served by
	// serveExplorer, described by nothing); aside: its pattern conflicts
	// with others (Routes.HandleAside); public: it needs no API key (the
	// API's login).
	explorer, aside, public bool
}

// apiHandlers binds each row of the ERP's endpoint table (apitable.ERP,
// where the paths are) to its operation, by the row's Handler name.
var apiHandlers = func() map[string]endpoint {
	thirdpartyIDs := param{name: "thirdparty_ids", in: "query", typ: "string", description: "Third party ids, comma-separated"}
	lineID := param{name: "lineid", in: "path", typ: "integer", required: true, description: "Id of the line"}
	return map[string]endpoint{
		"listUsers":  {summary: "List users", params: listParams(), op: listOp(users, func(st *state) []*user { return st.users })},
		"getUser":    {summary: "Get a user", params: []param{idParam}, op: byPath(getUser)},
		"createUser": {summary: "Create a user (login required)", params: []param{bodyParam}, op: createUser},
		"updateUser": {summary: "Update a user", params: []param{idParam, bodyParam}, op: updateUser},
		"deleteUser": {summary: "Delete a user", params: []param{idParam}, op: byPath(deleteUser)},

		"listThirdparties": {summary: "List third parties", params: listParams(param{name: "mode", in: "query", typ: "integer",
			description: "1 customers, 2 prospects, 3 neither, 4 suppliers"}), op: listThirdparties},
		"getThirdparty":    {summary: "Get a third party", params: []param{idParam}, op: byPath(getThirdparty)},
		"createThirdparty": {summary: "Create a third party (name required)", params: []param{bodyParam}, op: createThirdparty},
		"updateThirdparty": {summary: "Update a third party", params: []param{idParam, bodyParam}, op: updateThirdparty},
		"deleteThirdparty": {summary: "Delete a third party that no invoice or order names (its contacts go with it)", params: []param{idParam},
			op: byPath(deleteThirdparty)},

		"listContacts":  {summary: "List contacts", params: listParams(thirdpartyIDs), op: listContacts},
		"getContact":    {summary: "Get a contact", params: []param{idParam}, op: byPath(getContact)},
		"createContact": {summary: "Create a contact (lastname required; socid names its third party)", params: []param{bodyParam}, op: createContact},
		"updateContact": {summary: "Update a contact", params: []param{idParam, bodyParam}, op: updateContact},
		"deleteContact": {summary: "Delete a contact", params: []param{idParam}, op: byPath(deleteContact)},

		"listProducts": {summary: "List products", params: listParams(param{name: "mode", in: "query", typ: "integer",
			description: "1 products only, 2 services only"}), op: listProducts},
		"getProduct":    {summary: "Get a product", params: []param{idParam}, op: byPath(getProduct)},
		"createProduct": {summary: "Create a product (ref, unique, and label required)", params: []param{bodyParam}, op: createProduct},
		"updateProduct": {summary: "Update a product", params: []param{idParam, bodyParam}, op: updateProduct},
		"deleteProduct": {summary: "Delete a product that no line uses", params: []param{idParam}, op: byPath(deleteProduct)},

		"listInvoices": {summary: "List invoices", params: listParams(thirdpartyIDs, param{name: "status", in: "query", typ: "string",
			description: "draft, unpaid, paid or cancelled"}), op: listInvoices},
		"getInvoice":       {summary: "Get an invoice", params: []param{idParam}, op: byPath(getInvoice)},
		"createInvoice":    {summary: "Create a draft invoice (socid, type, lines)", params: []param{bodyParam}, op: createInvoice},
		"validateInvoice":  {summary: "Validate a draft invoice: it gets its final ref", params: []param{idParam, bodyParam}, op: byPath(validateInvoice)},
		"updateInvoice":    {summary: "Update an invoice (ref_client, notes, dates)", params: []param{idParam, bodyParam}, op: updateInvoice},
		"deleteInvoice":    {summary: "Delete a draft invoice", params: []param{idParam}, op: byPath(deleteInvoice)},
		"listInvoiceLines": {summary: "List the lines of an invoice", params: []param{idParam}, op: listLines(findInvoiceDoc)},
		"addInvoiceLine": {summary: "Add a line to a draft invoice; answers the line's id", params: []param{idParam, bodyParam},
			op: addLine(findInvoiceDoc)},
		"updateInvoiceLine": {summary: "Change a line of a draft invoice (every value is set)", params: []param{idParam, lineID, bodyParam},
			op: updateLine(findInvoiceDoc, getInvoice)},
		"deleteInvoiceLine": {summary: "Delete a line of a draft invoice", params: []param{idParam, lineID},
			op: deleteLine(findInvoiceDoc, getInvoice)},
		"listInvoicePayments": {summary: "List the payments of an invoice", params: []param{idParam}, op: byPath(listPayments)},
		"addInvoicePayment": {summary: "Pay what remains to pay on an invoice (paymentid, closepaidinvoices, datepaye)",
			params: []param{idParam, bodyParam}, op: addPayment},
		"setInvoicePaid": {summary: "Classify a validated invoice paid (close_code, close_note when payments do not cover it)",
			params: []param{idParam, bodyParam}, op: setPaid},
		"setInvoiceUnpaid": {summary: "Classify a paid invoice unpaid again", params: []param{idParam}, op: byPath(setUnpaid)},
		"payInvoices": {summary: "One payment of several invoices (arrayofamounts, paymentid, closepaidinvoices)",
			params: []param{bodyParam}, op: addDistributedPayment},
		"createInvoiceFromOrder": {summary: "Create a draft invoice from an order",
			params: []param{{name: "orderid", in: "path", typ: "integer", required: true, description: "Id of the order"}},
			opOf:   func(r *http.Request) operation { return createInvoiceFromOrder(r.PathValue("orderid")) }, aside: true},

		"listOrders":     {summary: "List orders", params: listParams(thirdpartyIDs), op: listOrders},
		"getOrder":       {summary: "Get an order", params: []param{idParam}, op: byPath(getOrder)},
		"createOrder":    {summary: "Create a draft order (socid, lines)", params: []param{bodyParam}, op: createOrder},
		"validateOrder":  {summary: "Validate a draft order: it gets its final ref", params: []param{idParam, bodyParam}, op: byPath(validateOrder)},
		"closeOrder":     {summary: "Close a validated order", params: []param{idParam, bodyParam}, op: byPath(closeOrder)},
		"reopenOrder":    {summary: "Reopen a closed order (validated again); answers 1", params: []param{idParam}, op: byPath(reopenOrder)},
		"updateOrder":    {summary: "Update an order (ref_client, notes, dates)", params: []param{idParam, bodyParam}, op: updateOrder},
		"deleteOrder":    {summary: "Delete an order", params: []param{idParam}, op: byPath(deleteOrder)},
		"listOrderLines": {summary: "List the lines of an order", params: []param{idParam}, op: listLines(findOrderDoc)},
		"addOrderLine": {summary: "Add a line to a draft order; answers the line's id", params: []param{idParam, bodyParam},
			op: addLine(findOrderDoc)},
		"updateOrderLine": {summary: "Change a line of a draft order (every value is set)", params: []param{idParam, lineID, bodyParam},
			op: updateLine(findOrderDoc, getOrder)},
		"deleteOrderLine": {summary: "Delete a line of a draft order", params: []param{idParam, lineID}, op: deleteLine(findOrderDoc, getOrder)},

		"listProposals":    {summary: "List commercial proposals", params: listParams(thirdpartyIDs), op: listProposals},
		"getProposal":      {summary: "Get a commercial proposal", params: []param{idParam}, op: byPath(getProposal)},
		"createProposal":   {summary: "Create a draft commercial proposal (socid, lines)", params: []param{bodyParam}, op: createProposal},
		"validateProposal": {summary: "Validate a draft proposal: it gets its final ref", params: []param{idParam, bodyParam}, op: byPath(validateProposal)},
		"closeProposal": {summary: "Close a validated proposal: status 2 signed, 3 not signed (note_private, notrigger)",
			params: []param{idParam, bodyParam}, op: closeProposal},
		"listProposalLines": {summary: "List the lines of a proposal", params: []param{idParam}, op: listLines(findProposalDoc)},
		"addProposalLine": {summary: "Add a line to a draft proposal; answers the line's id", params: []param{idParam, bodyParam},
			op: addLine(findProposalDoc)},
		"updateProposalLine": {summary: "Change a line of a draft proposal (every value is set)", params: []param{idParam, lineID, bodyParam},
			op: updateLine(findProposalDoc, getProposal)},
		"deleteProposalLine": {summary: "Delete a line of a draft proposal", params: []param{idParam, lineID},
			op: deleteLine(findProposalDoc, getProposal)},
		"createOrderFromProposal": {summary: "Create a draft order from a proposal",
			params: []param{{name: "proposalid", in: "path", typ: "integer", required: true, description: "Id of the proposal"}},
			opOf:   func(r *http.Request) operation { return createOrderFromProposal(r.PathValue("proposalid")) }, aside: true},

		"loginGet": {summary: "An API key for a login and password (login, password, entity, reset in the query); needs no key",
			params: loginParams("query"), op: apiLogin, public: true},
		"loginPost": {summary: "An API key for a login and password (login, password, entity, reset in the body); needs no key",
			params: loginParams("body"), op: apiLogin, public: true},
		"status": {summary: "The ERP's version", op: apiStatus},

		"buildDocument": {summary: "Build an invoice's or an order's PDF (modulepart, original_file REF/REF.pdf, doctemplate, langcode); answers it base64-encoded",
			params: []param{bodyParam}, op: buildDoc},
		"downloadDocument": {summary: "The document built last (modulepart, original_file), base64-encoded",
			params: []param{{name: "modulepart", in: "query", typ: "string", required: true, description: "invoice or order"},
				{name: "original_file", in: "query", typ: "string", required: true, description: "REF/REF.pdf"}}, op: downloadDoc},

		"listPaymentTypes": {summary: "The payment types (dictionary; active 1 or 0)", params: dictionaryParams(activeDictParam), op: listPaymentTypes},
		"listCountries": {summary: "The countries (dictionary; filter: part of the name; lang: the names' language)",
			params: dictionaryParams(countryFilterParam, langParam), op: listCountries},
		"getCountry": {summary: "A country by id (lang: the name's language)", params: []param{idParam, langParam}, op: getCountry},
		"getCountryByCode": {summary: "A country by its two-letter code, any case (lang: the name's language)",
			params: []param{{name: "code", in: "path", typ: "string", required: true, description: "ISO 3166 code, two letters"}, langParam}, op: getCountryBy("code")},
		"getCountryByISO": {summary: "A country by its three-letter code, any case (lang: the name's language)",
			params: []param{{name: "iso", in: "path", typ: "string", required: true, description: "ISO 3166 code, three letters"}, langParam}, op: getCountryBy("iso")},
		"listCurrencies": {summary: "The currencies (dictionary; active 1 or 0; multicurrency 0, 1 or 2)", params: dictionaryParams(activeDictParam, multicurrencyParam), op: listCurrencies},

		"explorerSpec":      {explorer: true},
		"explorerPage":      {explorer: true},
		"explorerPageSlash": {explorer: true},
	}
}()

// webHandlers binds each row of the ERP's web table (apitable.ERPWeb) to
// its handler.
var webHandlers = map[string]func(s *Server, w http.ResponseWriter, r *http.Request){
	"webRoot":   (*Server).servePage,
	"loginPage": (*Server).servePage,
	"login":     (*Server).serveLogin,
}

// routeTable is every route the fake serves, registered from the endpoint
// tables, built once and shared by all instances. Its patterns are what
// InjectFault and RequestsTo take.
var routeTable = sync.OnceValue(func() *routeSet {
	set := &routeSet{routes: fakekit.NewRoutes[*Server]()}
	rt := set.routes
	api := apitable.ERP()
	for _, e := range api.Endpoints {
		if h := apiHandlers[e.Handler]; !h.explorer {
			set.ops = append(set.ops, apiOp{method: e.Method, path: e.Path, summary: h.summary, params: h.params})
		}
	}
	err := fakekit.RegisterTable(api, apiHandlers, func(e apitable.Endpoint, pattern string, h endpoint) {
		switch {
		case h.explorer && e.Handler == "explorerSpec":
			rt.Handle(pattern, func(s *Server, w http.ResponseWriter, r *http.Request) { s.serveExplorer(w, r, set.ops) })
		case h.explorer && e.Handler == "explorerPage":
			rt.Handle(pattern, func(s *Server, w http.ResponseWriter, r *http.Request) { s.serveExplorerRedirect(w) })
		case h.explorer:
			rt.Handle(pattern, func(s *Server, w http.ResponseWriter, r *http.Request) { s.serveExplorerPage(w, set.ops) })
		case h.public:
			rt.Handle(pattern, func(s *Server, w http.ResponseWriter, r *http.Request) { s.servePublic(w, r, h.op) })
		case h.aside:
			rt.HandleAside(pattern, func(s *Server, w http.ResponseWriter, r *http.Request) { s.serve(w, r, h.opOf(r)) })
		default:
			rt.Handle(pattern, func(s *Server, w http.ResponseWriter, r *http.Request) { s.serve(w, r, h.op) })
		}
	})
	if err == nil {
		err = fakekit.RegisterTable(apitable.ERPWeb(), webHandlers, func(_ apitable.Endpoint, pattern string, h func(*Server, http.ResponseWriter, *http.Request)) {
			rt.Handle(pattern, h)
		})
	}
	if err != nil {
		panic(fmt.Sprintf("erpfake: %v", err)) // the tables and the handlers are compiled in; every test catches this
	}

	rt.NotFound(func(s *Server, w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != apiRoot && !strings.HasPrefix(r.URL.Path, apiRoot+"/") {
			fakekit.WriteAnswer(w, webNotFound())
			return
		}
		if !s.APIEnabled() {
			fakekit.WriteAnswer(w, moduleOff())
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
