// Package erp is a client for a business-management (ERP/CRM) application's
// REST API, modelled on an ERP with a PHP REST layer: users, third parties
// (customers, prospects, suppliers) and their contacts, products, invoices
// (with their lines and payments), orders and commercial proposals, at
// {root}/api/index.php, authenticated by an API key or by a web session.
//
//	c, err := erp.New("https://erp.example.com", erp.WithAPIKey(os.Getenv("ERP_API_KEY")))
//	if err != nil { … }
//	acme, err := c.CreateThirdparty(ctx, &erp.CreateThirdpartyRequest{Name: "Acme", Client: erp.Customer})
//	inv, err := c.CreateInvoice(ctx, &erp.CreateInvoiceRequest{SocID: acme.ID, Lines: []erp.LineRequest{
//		{ProductID: widget.ID, Qty: erp.MustDecimal("3")},
//	}})
//	inv, err = c.ValidateInvoice(ctx, inv.ID, nil) // inv.Ref: "FA2611-0001"
//	for inv, err := range c.AllInvoices(ctx, &erp.ListInvoicesOptions{Status: erp.InvoicesUnpaid}) { … }
//
// # Authentication
//
// [WithAPIKey] sends the key in the ERPAPIKEY header; [WithBearerAPIKey]
// sends it as "Authorization: Bearer <key>", which the ERP reads as well
// (for proxies that pass only standard headers on). [WithLogin] logs in
// through the web login form before the first call, as a browser does:
// it fetches the login page ({root}/index.php), which starts a session and
// carries the session's CSRF token, and posts back token,
// actionlogin=login (without which the ERP checks no password), username
// and password with that session's cookie; then it sends the new session's
// cookie with every call. A login page without a token field (the ERP's
// CSRF check off, or an old version) is posted without one. When a call
// is refused with 401, the client logs in again (once, however many calls
// noticed) and sends the call again if that cannot do it twice: a GET, PUT
// or DELETE, or any call the server refused at the door, before doing
// anything ("Failed to login to API…", or a message about the session).
// Otherwise the 401 goes to the caller, and its next call finds the new
// session. [NewFromSettings] builds a client from the deployment's settings,
// logged in as admin.
//
// # Entities
//
// In an ERP with several companies (its multi-company module), each API
// call works in one entity: [WithEntity] names it in the [EntityHeader]
// header of every API call, and the records listed, read and made are that
// entity's; without it the ERP works in the entity of the key's user (1 in
// a single-company ERP). Users and dictionaries such as countries and
// currencies are shared by the entities. The ERP reads the header as a
// number; the client accepts 1 to 2147483647 only, so that a mistake is
// an error at New rather than calls quietly made in entity 0. Use one
// client per entity.
//
// # Numbers, dates and unknown fields
//
// Depending on the PHP database driver, the ERP sends numbers as JSON
// numbers or as strings ("id":"12", "price":"100.00000000"). [ID], [Bool],
// [Decimal], [Time] and the enumerations read both. Money is a [Decimal],
// exact: it keeps the text the server sent and converts to big.Rat, float64
// or string. Dates are Unix seconds on the wire. Every record keeps the
// fields this package does not model in its Extra map, and every request
// can send more through its Extra map.
//
// # Lists
//
// ListX returns one [Page]; AllX iterates every record, fetching the next
// page only when the loop needs it and stopping after a short page (the ERP
// gives no other end-of-list sign). [ListOptions] carries the ERP's limit
// (default 100), page (from 0), sortfield, sortorder and sqlfilters; build
// filters with [Field], [And] and [Or], which check names and quote values.
// An empty list is [] in current versions and 404 "No … found" in older
// ones; both are an empty page.
//
// # Errors
//
// An error answer is an [*Error] with the status, the ERP's message ("Not
// Found: Invoice not found") and the details it adds ("ErrorProductAlready
// Exists"). Match it with errors.Is: [ErrBadRequest], [ErrUnauthorized],
// [ErrForbidden], [ErrNotFound], [ErrServer]; [ErrNothingDone] for the
// ERP's 304 "nothing done" (validating an invoice twice, closing an order
// twice); [ErrAPINotEnabled] when the REST module is off, which the ERP
// reports with a 200 web page rather than an error status; and
// [ErrAlreadyExists] for its "…AlreadyExists" codes.
//
// Secrets never print: the API key, the login's password (as it is, and
// URL- or JSON-encoded as it travels), the session cookies a login was
// given (the current ones and those of the last few sessions) and a
// password a request carries (CreateUserRequest, UpdateUserRequest) are
// taken out of errors, even when the server, a proxy or a transport quotes
// them back, and the types that hold one (Client, Settings, the requests)
// print and log without it. That holds for every error a returned error
// wraps too: an error that would show a secret is replaced by one of the
// same text without it, which errors.Is still matches as before but
// errors.As no longer finds as its original type (a *url.Error,
// *RateLimitError or *Error stays what it is, cleaned). What WithLogger
// logs and what WithHook sees are cleaned the same way, with an API key as
// with a login.
//
// # Retries
//
// A 429 is retried after the longer of the backoff (1 s doubling: 1, 2,
// 4 s) and the wait the server asks for (Retry-After, else the reset
// time), at most 3 times by default, never past the context's deadline; a
// server asking for more than the policy's MaxWait (60 s by default) ends
// the retries at once. A 5xx or a network failure is retried only for GET, PUT and
// DELETE, or when the connection was never made — and a 5xx the ERP
// answers in its own JSON error shape ("Error creating product") is a
// decision, never retried. A POST that may have reached the server is not sent twice. See
// [WithRetry].
//
// # Choices where the specification is silent
//
//   - Error bodies follow the ERP's Restler layer: {"error":{"code":…,
//     "message":"<status text>: <message>"}}, details under keys "0", "1", …
//     Statuses: 400 for a missing field ("name field missing") or a bad
//     value, 401 without a usable key or session, 403 for a permission, 404
//     for an unknown id, 500 for what the ERP's objects refuse (a taken
//     product ref or login: "Error creating product" with
//     "ErrorProductAlreadyExists"; an invoice without lines cannot be
//     validated), 304 for a transition already made.
//   - Create answers with the new record; a bare id, which many versions
//     answer, is read too (the record is then fetched). Update answers with
//     the record; delete with {"success":{"code":200,…}}.
//   - Validate takes {"idwarehouse":0,"notrigger":0} and close
//     {"notrigger":0}, and both answer with the record. A draft gets the
//     provisional ref "(PROVn)"; validation gives the final ref, prefix
//     (FA invoices, AV credit notes, AC deposits, CO orders), year and month
//     of the document's date, and a counter that runs on across months:
//     FA2611-0001. Orders go draft → validated → closed; a draft cannot be
//     closed (400).
//   - Deletes answer {"success":{"code":200,…}} (contacts: 1). A draft
//     invoice can be deleted, one with its final ref cannot (403 "Invoice
//     not erasable"); an order can be deleted in any state, as the ERP lets
//     whoever may delete orders; a product on a line, or a third party
//     that invoices or orders name, is in use (409 "Can't delete, that
//     product is probably used", the ERP's words for every object); a
//     third party's contacts go with it.
//   - Lines: adding one answers the new line's id; updating one sets every
//     value of the line from the request, as the ERP's updateline does
//     (UpdateLineRequest sends them all; Line.Update starts from the line
//     as it is); a validated document's lines cannot change: adding is 400,
//     updating an invoice's is 304 (ErrNothingDone), deleting is 405
//     ErrorDeleteLineNotAllowedByObjectStatus.
//   - Payments: POST /invoices/{id}/payments pays what remains to pay (the
//     ERP takes no amount there); PayInvoices (POST
//     /invoices/paymentsdistributed) pays given amounts over invoices, the
//     way to pay part of one. A payment moves an invoice it pays in full to
//     paid only with ClosePaid (closepaidinvoices "yes"). A draft, or an
//     invoice with nothing left to pay, is refused with 400.
//     SetInvoicePaid classifies a validated invoice paid whatever remains
//     (with a close code saying why), SetInvoiceUnpaid undoes it.
//   - ReopenOrder: the ERP answers 1; the order is read back.
//   - Proposals (quotes) share the lines and totals of invoices and orders:
//     a draft "(PROVn)" whose lines change, validated with the ref
//     PR2611-0001, closed with {"status":2} (signed) or {"status":3} (not
//     signed), "note_private" added to its private note, "notrigger";
//     closing one closed already is 304 (ErrNothingDone); a status other
//     than 2 or 3 is refused by the ERP with 400 and by CloseProposal
//     before any call. Adding a line to a validated proposal is 400 with no
//     message; changing one is 200 false in the ERP (the client reports a
//     decoding error) and 304 in the fake. CreateOrderFromProposal (POST
//     /orders/createfromproposal/{proposalid}) makes a draft order with the
//     proposal's third party, lines, customer ref and notes; the ERP's API
//     takes a proposal in any status (its pages offer it once signed).
//   - Login: the ERP answers a good login with a redirect and a refused one
//     with the login page (200); the client tells them apart by that, not by
//     the cookie, which both set. A form the ERP's CSRF check refuses is a
//     403 [*Error] with its text ("…refused by CSRF protection in
//     main.inc.php. Token not provided."). Sessions end after 1440 s without use
//     (PHP's default); the client learns it from a 401.
//   - [Client.RequestAPIKey] (POST /login) answers {"success":{"code":200,
//     "token":…,"entity":…,"message":…}} as the ERP's login API does, and
//     403 "Access denied" for a wrong login or password. [Client.Status]
//     reads GET /status; its version field carries the ERP's brand in real
//     deployments ("…_version"), any such field is read.
//   - Setup dictionaries: [Client.ListPaymentTypes], [Client.ListCountries],
//     [Client.ListCurrencies] (and their All…), [Client.GetCountry],
//     [Client.GetCountryByCode] and [Client.GetCountryByISO] read
//     /setup/dictionary/…, sorted by code (currencies by code_iso),
//     filtered on the dictionary's own columns (t.code, t.code_iso,
//     t.label, t.active). Payment types and currencies list the active
//     rows, or only the rows switched off ([DictionaryOptions].Inactive);
//     countries list all. The ERP filters countries by name after the
//     limit, so [Client.ListCountries] with a Name may answer a short page
//     with more to come; [Client.AllCountries] sends no name and keeps the
//     matches itself. The ERP's REST API has no VAT rate dictionary (the
//     rates are read by its web pages only), so this package has none: a
//     product's or a line's VAT rate is a field of its own.
//   - The API description is the Swagger document the explorer publishes at
//     /explorer/swagger.json ([Client.DescribeAPI]); [Client.Ping] checks
//     that the web root answers 200.
//   - The sqlfilters grammar the builder writes, and the fake reads, is
//     documented on [Filter]. String values are quoted '…' with \' and \\
//     escaped.
//   - Deployment settings: see [LoadSettings] for what each profile
//     requires. DB_PASSWORD is required in every profile (the application
//     always reaches its database with it).
//
// The fake in fake/erpfake keeps this contract for tests.
package erp
