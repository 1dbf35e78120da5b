package apitable

import "sync"

// The ERP documents each endpoint of its REST API in the doc comment of
// the PHP method that serves it (its explorer renders those comments), so
// a row's docs link is the source of the class serving it.
const erpDocs = "https://github.com/Dolibarr/dolibarr/blob/develop/htdocs/"

// ERP is the ERP's REST API, under /api/index.php: package erp and
// fake/erpfake. Shared: read it, never change it.
func ERP() *Table { return erpAPI() }

// ERPWeb is what the erp client uses of the ERP's web pages (the root, the
// login form), and the fake serves. Shared: read it, never change it.
func ERPWeb() *Table { return erpWeb() }

var erpAPI = sync.OnceValue(func() *Table {
	const (
		users    = erpDocs + "user/class/api_users.class.php"
		tps      = erpDocs + "societe/class/api_thirdparties.class.php"
		contacts = erpDocs + "societe/class/api_contacts.class.php"
		products = erpDocs + "product/class/api_products.class.php"
		invoices = erpDocs + "compta/facture/class/api_invoices.class.php"
		orders   = erpDocs + "commande/class/api_orders.class.php"
		explorer = erpDocs + "api/index.php"
	)
	return &Table{
		Name: "erp", Label: "ERP API", Root: "/api/index.php",
		Client: "github.com/apitwin/apitwin/erp", Fake: "github.com/apitwin/apitwin/fake/erpfake",
		DocsPrefix: erpDocs,
		Endpoints: []Endpoint{
			{"GET", "/users", "listUsers", []string{"ListUsers", "AllUsers"}, "", users},
			{"GET", "/users/{id}", "getUser", []string{"GetUser", "CreateUser"}, "", users},
			{"POST", "/users", "createUser", []string{"CreateUser"}, "", users},
			{"PUT", "/users/{id}", "updateUser", []string{"UpdateUser"}, "", users},
			{"DELETE", "/users/{id}", "deleteUser", []string{"DeleteUser"}, "", users},

			{"GET", "/thirdparties", "listThirdparties", []string{"ListThirdparties", "AllThirdparties"}, "", tps},
			{"GET", "/thirdparties/{id}", "getThirdparty", []string{"GetThirdparty", "CreateThirdparty"}, "", tps},
			{"POST", "/thirdparties", "createThirdparty", []string{"CreateThirdparty"}, "", tps},
			{"PUT", "/thirdparties/{id}", "updateThirdparty", []string{"UpdateThirdparty"}, "", tps},
			{"DELETE", "/thirdparties/{id}", "deleteThirdparty", []string{"DeleteThirdparty"}, "", tps},

			{"GET", "/contacts", "listContacts", []string{"ListContacts", "AllContacts"}, "", contacts},
			{"GET", "/contacts/{id}", "getContact", []string{"GetContact", "CreateContact"}, "", contacts},
			{"POST", "/contacts", "createContact", []string{"CreateContact"}, "", contacts},
			{"PUT", "/contacts/{id}", "updateContact", []string{"UpdateContact"}, "", contacts},
			{"DELETE", "/contacts/{id}", "deleteContact", []string{"DeleteContact"}, "", contacts},

			{"GET", "/products", "listProducts", []string{"ListProducts", "AllProducts"}, "", products},
			{"GET", "/products/{id}", "getProduct", []string{"GetProduct", "CreateProduct"}, "", products},
			{"POST", "/products", "createProduct", []string{"CreateProduct"}, "", products},
			{"PUT", "/products/{id}", "updateProduct", []string{"UpdateProduct"}, "", products},
			{"DELETE", "/products/{id}", "deleteProduct", []string{"DeleteProduct"}, "", products},

			{"GET", "/invoices", "listInvoices", []string{"ListInvoices", "AllInvoices"}, "", invoices},
			{"GET", "/invoices/{id}", "getInvoice", []string{"GetInvoice", "CreateInvoice"}, "", invoices},
			{"POST", "/invoices", "createInvoice", []string{"CreateInvoice"}, "", invoices},
			{"POST", "/invoices/{id}/validate", "validateInvoice", []string{"ValidateInvoice"}, "", invoices},
			{"PUT", "/invoices/{id}", "updateInvoice", []string{"UpdateInvoice"}, "", invoices},
			{"DELETE", "/invoices/{id}", "deleteInvoice", []string{"DeleteInvoice"}, "", invoices},
			{"GET", "/invoices/{id}/lines", "listInvoiceLines", []string{"ListInvoiceLines"}, "", invoices},
			{"POST", "/invoices/{id}/lines", "addInvoiceLine", []string{"AddInvoiceLine"}, "", invoices},
			{"PUT", "/invoices/{id}/lines/{lineid}", "updateInvoiceLine", []string{"UpdateInvoiceLine"}, "", invoices},
			{"DELETE", "/invoices/{id}/lines/{lineid}", "deleteInvoiceLine", []string{"DeleteInvoiceLine"}, "", invoices},
			{"GET", "/invoices/{id}/payments", "listInvoicePayments", []string{"ListInvoicePayments"}, "", invoices},
			{"POST", "/invoices/{id}/payments", "addInvoicePayment", []string{"AddInvoicePayment"}, "", invoices},
			{"POST", "/invoices/{id}/settopaid", "setInvoicePaid", []string{"SetInvoicePaid"}, "", invoices},
			{"POST", "/invoices/{id}/settounpaid", "setInvoiceUnpaid", []string{"SetInvoiceUnpaid"}, "", invoices},
			{"POST", "/invoices/paymentsdistributed", "payInvoices", []string{"PayInvoices"}, "", invoices},
			{"POST", "/invoices/createfromorder/{orderid}", "createInvoiceFromOrder", []string{"CreateInvoiceFromOrder"}, "", invoices},

			{"GET", "/orders", "listOrders", []string{"ListOrders", "AllOrders"}, "", orders},
			{"GET", "/orders/{id}", "getOrder", []string{"GetOrder", "CreateOrder", "ReopenOrder"}, "", orders},
			{"POST", "/orders", "createOrder", []string{"CreateOrder"}, "", orders},
			{"POST", "/orders/{id}/validate", "validateOrder", []string{"ValidateOrder"}, "", orders},
			{"POST", "/orders/{id}/close", "closeOrder", []string{"CloseOrder"}, "", orders},
			{"POST", "/orders/{id}/reopen", "reopenOrder", []string{"ReopenOrder"}, "", orders},
			{"PUT", "/orders/{id}", "updateOrder", []string{"UpdateOrder"}, "", orders},
			{"DELETE", "/orders/{id}", "deleteOrder", []string{"DeleteOrder"}, "", orders},
			{"GET", "/orders/{id}/lines", "listOrderLines", []string{"ListOrderLines"}, "", orders},
			{"POST", "/orders/{id}/lines", "addOrderLine", []string{"AddOrderLine"}, "", orders},
			{"PUT", "/orders/{id}/lines/{lineid}", "updateOrderLine", []string{"UpdateOrderLine"}, "", orders},
			{"DELETE", "/orders/{id}/lines/{lineid}", "deleteOrderLine", []string{"DeleteOrderLine"}, "", orders},

			{"GET", "/explorer/swagger.json", "explorerSpec", []string{"DescribeAPI"}, "", explorer},
			{"GET", "/explorer", "explorerPage", nil, "the explorer's page, for browsers; DescribeAPI reads the description it shows", explorer},
			{"GET", "/explorer/{$}", "explorerPageSlash", nil, "as GET /explorer", explorer},
		},
	}
})

var erpWeb = sync.OnceValue(func() *Table {
	return &Table{
		Name: "erp web", Label: "ERP web", Root: "",
		Client: "github.com/apitwin/apitwin/erp", Fake: "github.com/apitwin/apitwin/fake/erpfake",
		DocsPrefix: erpDocs,
		Endpoints: []Endpoint{
			{"GET", "/{$}", "webRoot", []string{"Ping"}, "", erpDocs + "index.php"},
			{"GET", "/index.php", "loginPage", nil, "the login page, for browsers", erpDocs + "index.php"},
			{"POST", "/index.php", "login", []string{"Login"}, "", erpDocs + "main.inc.php"},
		},
	}
})
