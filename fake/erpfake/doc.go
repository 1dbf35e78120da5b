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
// their customer and supplier codes, products, invoices and orders with
// their lines.
//
// What it checks, as the ERP does: an API key (header ERPAPIKEY, or the
// ERPAPIKEY or api_key query parameter) or a live session cookie
// (ERPSESSID, from the login form at /index.php), else 401; a third party
// needs a name; a product needs a ref, unique ignoring case, and a label;
// an invoice's socid must name a third party and its lines existing
// products; totals are computed from the lines (each line's amounts rounded
// to the cent); invoices and orders start as drafts with the ref "(PROVn)"
// and get their final ref when validated (FA2611-0001, CO2611-0001); a
// second validation is 304, nothing done; orders go draft → validated →
// closed, and a draft cannot be closed; only administrators manage users;
// a missing record is 404 ("Not Found: Invoice not found"). Bodies must be
// JSON (anything else is 403, as the ERP's Restler layer answers). Lists
// honour limit (default 100; 0 for all), page (from 0), sortfield (columns,
// comma-separated), sortorder, sqlfilters, pagination_data, and each
// resource's own (mode, status, thirdparty_ids).
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
// Numbers are answered as strings ("id":"12", "price":"100.00000000"), as
// the ERP does on older PHP database drivers, or with WithNativeNumbers as
// JSON numbers. Options also reproduce other versions: WithBareCreateIDs
// (create answers the bare id) and WithEmptyListNotFound (an empty list is
// 404 "No … found").
//
// Controls: [Server.Clock] (shared with the clients the server makes, and
// driving session expiry), [Server.SetAPIEnabled] (off: every API call
// answers the ERP's 200 "Module Api must be enabled" page),
// [Server.InjectFault] per route, [Server.Requests], [Server.EndSessions],
// seeding (AddUser, NewAPIKey, AddThirdparty, AddProduct, AddInvoice,
// AddOrder) and reading back (User, Invoice, Invoices, …) in the client's
// types.
//
// /api/index.php/explorer (and /explorer/swagger.json) serves a Swagger 2.0
// description of the fake's own API; the web root answers 200 with the
// login page.
//
// Known differences from the ERP: permissions are all or nothing (admins
// manage users, everyone else can do the rest); there are no payments,
// warehouses, categories, contacts or extra fields; document dates are days
// in UTC; the login form needs no CSRF token.
package erpfake
