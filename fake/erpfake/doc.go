// Package erpfake is a stateful, in-process twin of the ERP's REST API and
// of the parts of its web interface that API users meet, for testing code
// that uses package erp (or any client of such an ERP) without a real
// server.
//
//	srv := erpfake.Start(t)                 // on loopback, closed when the test ends
//	acme, _ := srv.AddThirdparty(erpfake.ThirdpartySeed{Name: "Acme", Client: 1})
//	c := srv.Client()                       // an erp client with admin's API key
//	c.CreateInvoice(ctx, &erp.CreateInvoiceRequest{SocID: erp.ID(acme), …})
//	srv.Clock().Advance(time.Hour)          // web sessions expire
//
// What it keeps: users (admin, with the password of WithAdminPassword, and
// others) with API keys and passwords, web sessions, third parties with
// their customer and supplier codes and their contacts, products, invoices
// and orders with their lines, and payments of invoices.
//
// What it checks, as the ERP does: an API key (header ERPAPIKEY, else the
// ERPAPIKEY or api_key query parameter, else "Authorization: Bearer
// <key>") or a live session cookie (ERPSESSID, from the login form at
// /index.php), else 401; the login form as the ERP's main.inc.php checks
// it with its CSRF protection on: the login page starts a session (a
// cookie) and carries its token, a POST without a token is 403 with the
// ERP's text, one whose token is not its cookie's shows the login page
// again ("Security token has expired…"), and the password is checked only
// with actionlogin=login (WithBareLogin, and apitwin-fake's
// --erp-bare-login, take username and password alone, as the
// specification shows the form); a third party
// needs a name; a product needs a ref, unique ignoring case, and a label;
// an invoice's socid must name a third party and its lines existing
// products; totals are computed from the lines (each line's amounts rounded
// to the cent); invoices and orders start as drafts with the ref "(PROVn)"
// and get their final ref when validated (FA2611-0001, CO2611-0001); a
// second validation is 304, nothing done; orders go draft → validated →
// closed, and a draft cannot be closed; a closed order can be reopened
// (validated again); the lines of a draft can be added, changed (every
// value set from the request, as the ERP's updateline does) and deleted,
// a validated document's cannot (400, 304, 405); a draft invoice can be
// deleted, a validated one cannot (403 "Invoice not erasable"); a payment
// pays what remains (POST /invoices/{id}/payments) or given amounts over
// invoices (/invoices/paymentsdistributed, never more than remains), is
// refused for a draft, and with closepaidinvoices "yes" moves an invoice
// it pays in full to paid; /settopaid classifies a validated invoice paid
// whatever remains (close_code discount_vat, badcustomer, bankcharge,
// withdraw or other), /settounpaid undoes it (304 when there is nothing
// to do); an invoice can be made from an order
// (/invoices/createfromorder/{orderid}: its third party, lines, refs and
// notes); commercial proposals share the documents' lines and totals: a
// draft "(PROVn)" valid 15 days (fin_validite), validated as PR2611-0001,
// closed with status 2 (signed) or 3 (not signed; anything else 400
// "Invalid value specified for `status`…", none 400 "`status` is
// required."), note_private appended to the private note, closed twice
// 304; an order is made from one by
// /orders/createfromproposal/{proposalid} (a draft order with its third
// party, lines, customer ref and notes; 404 "Proposal not found", 400
// "Proposal ID is mandatory" for 0); a product on a line and a third party with invoices or orders
// are in use (409), and a third party's contacts go with it; a contact
// needs a lastname and an existing socid; only administrators manage users,
// and no user can delete or disable their own account, nor can anyone take
// a user's admin flag away ("Reseting the admin status of a user is not
// possible using the API"), so the last administrator stays one; a missing
// record is 404 ("Not Found: Invoice not found"; "Account not found" for
// an update of a user). A path whose first segment names no API the ERP
// has (/api/index.php/nowhere) is 501 with the text "API not found (failed
// to include API file)", as the ERP's index.php prints it, not JSON; an
// unknown path under a known API is 404 in the JSON shape. Bodies must be JSON (anything else
// is 403, as the ERP's Restler layer answers). Lists honour limit (default
// 100; 0 for all), page (from 0), sortfield (columns, comma-separated),
// sortorder, sqlfilters, pagination_data, and each resource's own (mode,
// status, thirdparty_ids).
//
// The query string is read as PHP reads it: a + is a space, %XX a byte, and
// a % not followed by two hex digits stays a % (curl users send
// (t.nom:like:'%cme%') unencoded). A filter that is not valid UTF-8 once
// decoded ('%acme%' holds the escape %ac) is refused with 400 rather than
// applied to something the caller did not write; no filter is ever
// dropped.
//
// sqlfilters: the grammar is on the parser (sqlfilter.go): criteria
// (t.field:op:value) joined by and/or with parentheses; operators = != <>
// < <= > >= like notlike in notin is isnot; values '…' (with \' and \\),
// numbers, null and lists. Fields are the ERP's columns, with or without
// the alias t (t.ref, t.fk_soc, t.fk_statut, t.datef, t.nom), and the JSON
// names where they differ. A malformed filter, an unknown field or a value
// of the wrong kind is 400 "Error when validating parameter sqlfilters ->
// …"; nothing panics (a fuzz target checks).
//
// Numbers are answered as strings ("id":"12", "price":"100.00000000") by
// default, or as JSON numbers with WithNativeNumbers, [Server.SetNativeNumbers],
// apitwin-fake's --erp-native-numbers or its control API (POST
// /api/erp/settings {"native_numbers":true}). Which form a real deployment
// sends is not a setting of its API: the REST layer encodes the objects as
// they hold their values, PHP's mysqli (and pgsql) driver hands every
// column over as a string, and the objects' fetch methods copy most
// columns as they come, so amounts (DECIMAL columns) arrive as strings on
// every version, and ids, types and statuses as strings too except where a
// version casts them (recent versions cast more of them; a mix is usual).
// A client must read both forms, per field. Options also reproduce other versions: WithBareCreateIDs
// (create answers the bare id) and WithEmptyListNotFound (an empty list is
// 404 "No … found"). [Server.SetAPIEnabled] switches the REST API module
// off: every API call then answers the ERP's 200 "Module Api must be
// enabled" page.
//
// The API's login, GET|POST /api/index.php/login (login, password, entity,
// reset; no key needed), answers the user's API key, making one when the
// user has none or reset is 1 (the key before stops working), and 403
// "Access denied" for a wrong login or password, 403 "Bad value for entity,
// must be the numeric ID of company." for an entity that is not a number;
// every user may renew their own key. GET /api/index.php/status answers
// {"success":{"code":200,"erp_version":"21.0.0","access_locked":"0"}}
// ([Version]; the ERP names the field after its brand).
//
// Documents: PUT /api/index.php/documents/builddoc (modulepart invoice or
// order, or the older facture and commande; original_file REF/REF.pdf;
// doctemplate; langcode) builds the record's PDF, a real one (PDF 1.4,
// Helvetica, its ref, date, third party, a line per line and the totals),
// keeps it on the record (one, the last built, in snapshots too) and
// answers it as the ERP does: {"filename","content-type","filesize",
// "content" (base64),"langcode","template","encoding":"base64"}; GET
// /documents/download?modulepart=&original_file= answers the kept one
// without langcode and template, 404 "File not found" before a build.
// Refusals: 400 "bad value for parameter modulepart" (or original_file),
// 401 for a path with .. or <>|, 403 "Generation not available for this
// modulepart", 404 "Invoice not found" / "Order not found". The record is
// found by the file's base name, as the ERP finds it; the fake does not
// check the directory part.
//
// Setup dictionaries: GET /api/index.php/setup/dictionary/payment_types
// (id, code, type, label, module), /countries and /countries/{id} (id,
// code, code_iso, label, phone_code, eec, active, favorite, numeric_code)
// and /currencies
// (code_iso, label, unicode) serve a fixed part of the ERP's own rows: 10
// payment types (the payment modes' ids), 12 countries (names in fr_FR and
// de_DE besides English), 7 currencies; read-only, in no snapshot. Each
// list takes sortfield (default code; code_iso for currencies), sortorder,
// limit, page and sqlfilters over its columns; payment types and
// currencies take active (1, the default, or 0; else 400), currencies
// multicurrency (0 to 2; the fake keeps no rates, so 1 and 2 answer []);
// countries take filter (a part of the shown name, any case, applied to
// the page after the limit, as the ERP does) and lang. They answer a plain
// array, [] when empty even with WithEmptyListNotFound (the Setup class
// has no 404 for a list and no pagination_data).
// /countries/byCode/{code} and /countries/byISO/{iso} read one by its
// two- or three-letter code, any case; an unknown country is 404 "Country
// not found".
//
// /api/index.php/explorer/swagger.json serves a Swagger 2.0 description of
// the fake's own API, and /api/index.php/explorer/ a small page listing
// it (no script, nothing fetched from elsewhere; /explorer redirects there,
// as the ERP's explorer does); the web root answers 200 with the
// login page; other paths outside the API answer the web server's 404 page.
//
// # Entities
//
// The ERPAPIENTITY request header ([erp.EntityHeader], the ERP's
// DOLAPIENTITY, which its multi-company module reads) names the entity
// (company) an API call works in; without it the call works in entity 1.
// Third parties, their contacts, products, invoices, orders and proposals
// belong to the entity they were made in (their "entity" field): a call
// lists, reads, changes and bills only its entity's (another entity's is
// 404 "… not found"), and third party codes and product refs are unique
// within an entity. Users and their API keys, web sessions, the
// dictionaries, ids and the counters of final refs are shared by all
// entities. A value that is not a positive decimal int32 ("abc", "0",
// "+2", "2147483648") is refused with 403 "Bad value for entity, must be
// the numeric ID of company." before anything is read. An entity the fake
// has no records of answers empty lists and keeps nothing; at most 100
// entities besides entity 1 hold records at once, and a call naming one
// more is refused with the same 403 (a bound of the fake's own). The
// bound of records per kind holds across all entities together. The Go
// side (AddThirdparty, Thirdparties and the like), the web pages and
// snapshots see entity 1 only, and Snapshot (so apitwin-fake's state
// directory) fails while another entity holds records, rather than leave
// them out.
//
// Where this differs from the ERP: the ERP casts the header to a number,
// so "abc" works in entity 0 and "2x" in entity 2, where the fake refuses
// both; it answers a record of another entity 403 "Access not allowed for
// login …" (it finds the row, then its access check refuses it), the fake
// 404; it ties each user but a superadmin to one entity (a key used with
// another entity's header is 401 "Error user not valid … (conf->entity=N)")
// unless users are shared, where every user of the fake works in every
// entity; it numbers final refs per entity and keeps payment types per
// entity (countries and currencies are global there too); it knows its
// entities and their settings, where the fake makes one of any id.
//
// # Serving and controls
//
// Like every apitwin fake: [New] builds one that serves nothing yet (it is
// an http.Handler); [Start] serves it on loopback until the
// test ends (over TLS with [control.WithTLS]); [Server.Serve] and [Server.Listen] serve it for programs until
// [Server.Close]. Every listener has header and idle timeouts, and Close
// gives running requests two seconds before it closes their connections.
// The controls are the same on every fake ([control.Controls]):
// [Server.InjectFault] per route (the http.ServeMux pattern the fake
// registers, "POST /api/index.php/invoices", or "" for all: a status, a
// body, latency on the wall or the fake clock, a dropped connection, for
// the next N requests), [Server.Faults], [Server.ClearFaults], the request
// log ([Server.Requests], [Server.RequestsTo], [Server.ResetRequests]; each
// entry names the caller), [Server.Reset], and [Server.Clock]. Seeding and
// reading back: [Server.Load] with a [Seed], AddUser, IssueAPIKey, RevokeAPIKey,
// SetUserEnabled, AddThirdparty, AddContact, AddProduct, AddInvoice (a
// paid one paid by one transfer of its total), AddOrder, AddProposal
// (a draft, validated, signed or not signed); User, Users, Thirdparty,
// Thirdparties, Contact, Contacts, Product, Products, Invoice, Invoices,
// Order, Orders, Proposal, Proposals, in the client's types, as the API would show
// them to admin. [Server.EndSessions] ends every web session.
//
// A [Seed] holds every kind of record the fake keeps, with the same field
// names in JSON and YAML; invoices, orders and proposals name their third party by
// name and their products by ref (or either by id). Load stops at the first
// refusal and names the entry: `products[1]: ref "X" already exists`.
//
// # Bounds
//
// The numbers a request carries are bounded as the ERP's database bounds
// them, and refused with 400 in the ERP's shape, naming the field, before
// any arithmetic is done on them. These bounds are the ERP's schema, not
// options:
//
//   - Amounts, quantities, prices and rates (qty, subprice, price,
//     price_ttc, price_min, weight, tva_tx, remise_percent) are
//     DECIMAL(24,8): at most 16 digits before the point and 8 after,
//     leading and trailing zeros aside ("1.5e3" is read too). The digits
//     are counted in one pass over the text, so a number of a million
//     digits is refused as fast as it is read. What the fake computes from
//     them (a price with tax, a line's total, a document's total) must fit
//     the same columns.
//   - Integers (socid, fk_product, type, client, flags, limit, page, mode,
//     thirdparty_ids) are INTs: -2147483648 to 2147483647. An id in a path
//     past that range is 400; within it, an unknown id (or one that is not
//     a number) is 404. A limit of 0 or less lists everything, a page below
//     0 is the first; limit × page cannot overflow.
//   - Dates (date, date_lim_reglement, delivery_date) are DATETIMEs: from
//     1000-01-01 to 9999-12-31, as Unix seconds or "YYYY-MM-DD[ HH:MM:SS]".
//   - sqlfilters: at most 10,000 characters and 32 levels of parentheses.
//
// What the fake holds for itself is bounded too:
//
//   - Request bodies: at most 1 MiB ([control.WithMaxBody], [DefaultMaxBody]); a
//     larger one is refused with 413 in the ERP's error shape before it is
//     read.
//   - The request log: the newest 10,000 requests, the first 64 KiB of each
//     body and 16 KiB of each header, 32 MiB in all ([control.WithRequestLog]).
//     It keeps no secret: the API key is "[REDACTED]" in ERPAPIKEY,
//     DOLAPIKEY and the api_key and ERPAPIKEY parameters, "Bearer
//     [REDACTED]" in Authorization, a session's cookie "<name>=[REDACTED]",
//     and so are the values of [SecretFields] (pass, password, api_key,
//     the stored-password properties, token) in bodies, forms and queries,
//     and a URL's password. Who a request was authenticated as is its
//     Caller.
//   - Records: at most 100,000 of each kind ([control.WithMaxRecords],
//     [DefaultMaxRecords]): users, third parties, contacts, products,
//     invoices, orders, proposals, lines (of invoices, orders and proposals
//     together) and
//     payments (a payment of k invoices counts k). A create past the bound
//     is refused as the ERP refuses an insert its database turns down,
//     with MySQL's words for a full table, and writes nothing: 500
//     {"error":{"code":500,"message":"Internal Server Error: Error creating
//     invoice","0":"The table 'llx_facture' is full"}} (a line: 400
//     "Unable to insert the new line. Check your inputs. The table
//     'llx_facturedet' is full"; a payment: 400 "Payment error : The table
//     'llx_paiement_facture' is full"; createfromorder and
//     createfromproposal: 405; a proposal: "Error creating order", the
//     ERP's words). Deleting
//     records makes room. Measured: a third party or a contact takes
//     about 350 bytes, a product 700, an invoice or an order of one line
//     1.1 KB, so a kind full to the bound holds 35 to 115 MB.
//   - Documents: one PDF per invoice or order, the last built, about 80
//     bytes a line and 1 KB more; the records' bound bounds them.
//   - Web sessions: once 10,000 are open, a login sweeps out the expired
//     ones (as PHP sweeps its session store now and then), and sweeps again
//     only when twice as many as it kept are open.
//   - Listeners: 10 s to send the headers, 64 KiB of headers in at most
//     100 fields, 30 s to send the body, 2 minutes to read the answer, 2
//     minutes idle; a request with both Content-Length and
//     Transfer-Encoding, or more fields, is refused with 400 and its
//     connection closed. Each listener holds at most a tenth of the
//     process's limit on open files in connections, between 64 and 4,096
//     (2,000 at `ulimit -n` 20,000); one more is closed at once.
//   - The state lock is held only to look records up and change them:
//     bodies, queries, filters and numbers are read before it is taken,
//     and answers are written after it is released.
//
// A handler that panics is answered 500 in the ERP's error shape and the
// panic is in the request log (Request.Panic): it is a bug of the fake's,
// please report it.
//
// Known differences from the ERP: permissions are all or nothing (admins
// manage users, everyone else can do the rest); the dictionaries are a
// dozen rows each, not the ERP's hundreds, and only those four (the ERP's
// REST API has no VAT rate dictionary, so neither has the fake); there are no warehouses,
// categories, bank accounts or extra fields (a payment's accountid is
// checked for form only, and the payment modes are the standard ones:
// 1 TIP, 2 VIR, 3 PRE, 4 LIQ, 6 CB, 7 CHQ, 50–53); changing a validated
// order's line is refused with 400 where the ERP answers 200 false; an
// unknown line is 404 "Line not found"; the route
// POST /api/index.php/invoices/createfromorder/{orderid} is served by the
// route table's fallback (http.ServeMux finds it ambiguous beside
// /invoices/{id}/lines), so its request-log entries and faults use the
// pattern "/", and so is /orders/createfromproposal/{proposalid};
// a draft proposal cannot be closed and a billed one cannot be reclosed
// (400; the ERP's closeProposal changes the status whatever it was);
// validating a proposal without lines is refused (500) as for orders;
// changing a validated proposal's line is 304 where the ERP answers 200
// false, and adding one 400 "Bad Request" (the ERP's addline sets no
// message); there is no settodraft, setinvoiced, update or delete of a
// proposal; document dates are days
// in UTC; the login form's token does not change at each page (the ERP
// makes a new one per page and takes the one before), and lasts as long
// as its session cookie, which the fake keeps nothing for until a login;
// text fields are not held to
// their columns' lengths (only the body limit bounds them).
package erpfake
