package apitable

import "sync"

// The ERP's rows link to no documentation: the specification keeps the
// product's name out (its brand words were replaced on purpose), and a
// deployment documents its own REST API in its explorer
// (GET /api/index.php/explorer), which the client reads (DescribeAPI).

// ERP is the ERP's REST API, under /api/index.php: package erp and
// fake/erpfake. Shared: read it, never change it.
func ERP() *Table { return erpAPI() }

// ERPWeb is what the erp client uses of the ERP's web pages (the root, the
// login form), and the fake serves. Shared: read it, never change it.
func ERPWeb() *Table { return erpWeb() }

var erpAPI = sync.OnceValue(func() *Table {
	return &Table{
		Name: "erp", Label: "ERP API", Root: "/api/index.php",
		Client: "github.com/apitwin/apitwin/erp", Fake: "github.com/apitwin/apitwin/fake/erpfake",
		Endpoints: []Endpoint{
			{"GET", "/users", "listUsers", []string{"ListUsers", "AllUsers"}, "", ""},
			{"GET", "/users/{id}", "getUser", []string{"GetUser", "CreateUser"}, "", ""},
			{"POST", "/users", "createUser", []string{"CreateUser"}, "", ""},
			{"PUT", "/users/{id}", "updateUser", []string{"UpdateUser"}, "", ""},
			{"DELETE", "/users/{id}", "deleteUser", []string{"DeleteUser"}, "", ""},

			{"GET", "/thirdparties", "listThirdparties", []string{"ListThirdparties", "AllThirdparties"}, "", ""},
			{"GET", "/thirdparties/{id}", "getThirdparty", []string{"GetThirdparty", "CreateThirdparty"}, "", ""},
			{"POST", "/thirdparties", "createThirdparty", []string{"CreateThirdparty"}, "", ""},
			{"PUT", "/thirdparties/{id}", "updateThirdparty", []string{"UpdateThirdparty"}, "", ""},
			{"DELETE", "/thirdparties/{id}", "deleteThirdparty", []string{"DeleteThirdparty"}, "", ""},

			{"GET", "/contacts", "listContacts", []string{"ListContacts", "AllContacts"}, "", ""},
			{"GET", "/contacts/{id}", "getContact", []string{"GetContact", "CreateContact"}, "", ""},
			{"POST", "/contacts", "createContact", []string{"CreateContact"}, "", ""},
			{"PUT", "/contacts/{id}", "updateContact", []string{"UpdateContact"}, "", ""},
			{"DELETE", "/contacts/{id}", "deleteContact", []string{"DeleteContact"}, "", ""},

			{"GET", "/products", "listProducts", []string{"ListProducts", "AllProducts"}, "", ""},
			{"GET", "/products/{id}", "getProduct", []string{"GetProduct", "CreateProduct"}, "", ""},
			{"POST", "/products", "createProduct", []string{"CreateProduct"}, "", ""},
			{"PUT", "/products/{id}", "updateProduct", []string{"UpdateProduct"}, "", ""},
			{"DELETE", "/products/{id}", "deleteProduct", []string{"DeleteProduct"}, "", ""},

			{"GET", "/invoices", "listInvoices", []string{"ListInvoices", "AllInvoices"}, "", ""},
			{"GET", "/invoices/{id}", "getInvoice", []string{"GetInvoice", "CreateInvoice"}, "", ""},
			{"POST", "/invoices", "createInvoice", []string{"CreateInvoice"}, "", ""},
			{"POST", "/invoices/{id}/validate", "validateInvoice", []string{"ValidateInvoice"}, "", ""},
			{"PUT", "/invoices/{id}", "updateInvoice", []string{"UpdateInvoice"}, "", ""},
			{"DELETE", "/invoices/{id}", "deleteInvoice", []string{"DeleteInvoice"}, "", ""},
			{"GET", "/invoices/{id}/lines", "listInvoiceLines", []string{"ListInvoiceLines"}, "", ""},
			{"POST", "/invoices/{id}/lines", "addInvoiceLine", []string{"AddInvoiceLine"}, "", ""},
			{"PUT", "/invoices/{id}/lines/{lineid}", "updateInvoiceLine", []string{"UpdateInvoiceLine"}, "", ""},
			{"DELETE", "/invoices/{id}/lines/{lineid}", "deleteInvoiceLine", []string{"DeleteInvoiceLine"}, "", ""},
			{"GET", "/invoices/{id}/payments", "listInvoicePayments", []string{"ListInvoicePayments"}, "", ""},
			{"POST", "/invoices/{id}/payments", "addInvoicePayment", []string{"AddInvoicePayment"}, "", ""},
			{"POST", "/invoices/{id}/settopaid", "setInvoicePaid", []string{"SetInvoicePaid"}, "", ""},
			{"POST", "/invoices/{id}/settounpaid", "setInvoiceUnpaid", []string{"SetInvoiceUnpaid"}, "", ""},
			{"POST", "/invoices/paymentsdistributed", "payInvoices", []string{"PayInvoices"}, "", ""},
			{"POST", "/invoices/createfromorder/{orderid}", "createInvoiceFromOrder", []string{"CreateInvoiceFromOrder"}, "", ""},

			{"GET", "/orders", "listOrders", []string{"ListOrders", "AllOrders"}, "", ""},
			{"GET", "/orders/{id}", "getOrder", []string{"GetOrder", "CreateOrder", "ReopenOrder"}, "", ""},
			{"POST", "/orders", "createOrder", []string{"CreateOrder"}, "", ""},
			{"POST", "/orders/{id}/validate", "validateOrder", []string{"ValidateOrder"}, "", ""},
			{"POST", "/orders/{id}/close", "closeOrder", []string{"CloseOrder"}, "", ""},
			{"POST", "/orders/{id}/reopen", "reopenOrder", []string{"ReopenOrder"}, "", ""},
			{"PUT", "/orders/{id}", "updateOrder", []string{"UpdateOrder"}, "", ""},
			{"DELETE", "/orders/{id}", "deleteOrder", []string{"DeleteOrder"}, "", ""},
			{"GET", "/orders/{id}/lines", "listOrderLines", []string{"ListOrderLines"}, "", ""},
			{"POST", "/orders/{id}/lines", "addOrderLine", []string{"AddOrderLine"}, "", ""},
			{"PUT", "/orders/{id}/lines/{lineid}", "updateOrderLine", []string{"UpdateOrderLine"}, "", ""},
			{"DELETE", "/orders/{id}/lines/{lineid}", "deleteOrderLine", []string{"DeleteOrderLine"}, "", ""},
			{"POST", "/orders/createfromproposal/{proposalid}", "createOrderFromProposal", []string{"CreateOrderFromProposal"}, "", ""},

			{"GET", "/proposals", "listProposals", []string{"ListProposals", "AllProposals"}, "", ""},
			{"GET", "/proposals/{id}", "getProposal", []string{"GetProposal", "CreateProposal"}, "", ""},
			{"POST", "/proposals", "createProposal", []string{"CreateProposal"}, "", ""},
			{"POST", "/proposals/{id}/validate", "validateProposal", []string{"ValidateProposal"}, "", ""},
			{"POST", "/proposals/{id}/close", "closeProposal", []string{"CloseProposal"}, "", ""},
			{"GET", "/proposals/{id}/lines", "listProposalLines", []string{"ListProposalLines"}, "", ""},
			{"POST", "/proposals/{id}/lines", "addProposalLine", []string{"AddProposalLine"}, "", ""},
			{"PUT", "/proposals/{id}/lines/{lineid}", "updateProposalLine", []string{"UpdateProposalLine"}, "", ""},
			{"DELETE", "/proposals/{id}/lines/{lineid}", "deleteProposalLine", []string{"DeleteProposalLine"}, "", ""},

			{"GET", "/login", "loginGet", nil, "as POST /login, with the password in the URL", ""},
			{"POST", "/login", "loginPost", []string{"RequestAPIKey"}, "", ""},
			{"GET", "/status", "status", []string{"Status"}, "", ""},
			{"PUT", "/documents/builddoc", "buildDocument", []string{"BuildDocument"}, "", ""},
			{"GET", "/documents/download", "downloadDocument", []string{"DownloadDocument"}, "", ""},

			{"GET", "/setup/dictionary/payment_types", "listPaymentTypes", []string{"ListPaymentTypes", "AllPaymentTypes"}, "", ""},
			{"GET", "/setup/dictionary/countries", "listCountries", []string{"ListCountries", "AllCountries"}, "", ""},
			{"GET", "/setup/dictionary/countries/{id}", "getCountry", []string{"GetCountry"}, "", ""},
			{"GET", "/setup/dictionary/countries/byCode/{code}", "getCountryByCode", []string{"GetCountryByCode"}, "", ""},
			{"GET", "/setup/dictionary/countries/byISO/{iso}", "getCountryByISO", []string{"GetCountryByISO"}, "", ""},
			{"GET", "/setup/dictionary/currencies", "listCurrencies", []string{"ListCurrencies", "AllCurrencies"}, "", ""},

			{"GET", "/explorer/swagger.json", "explorerSpec", []string{"DescribeAPI"}, "", ""},
			{"GET", "/explorer", "explorerPage", nil, "redirects to /explorer/", ""},
			{"GET", "/explorer/{$}", "explorerPageSlash", nil, "the explorer's page, for browsers; DescribeAPI reads the description it shows", ""},
		},
	}
})

var erpWeb = sync.OnceValue(func() *Table {
	return &Table{
		Name: "erp web", Label: "ERP web", Root: "",
		Client: "github.com/apitwin/apitwin/erp", Fake: "github.com/apitwin/apitwin/fake/erpfake",
		Endpoints: []Endpoint{
			{"GET", "/{$}", "webRoot", []string{"Ping"}, "", ""},
			{"GET", "/index.php", "loginPage", []string{"Login"}, "", ""},
			{"POST", "/index.php", "login", []string{"Login"}, "", ""},
		},
	}
})
