package erp

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"
)

// Document modules: what BuildDocument builds a document of.
const (
	InvoiceDocuments = "invoice"
	OrderDocuments   = "order"
)

// DocumentPath is where the ERP keeps a record's PDF, relative to its
// module: "FA2611-0001/FA2611-0001.pdf" for the invoice FA2611-0001.
func DocumentPath(ref string) string { return ref + "/" + ref + ".pdf" }

// BuildDocumentRequest asks for a record's document to be built.
type BuildDocumentRequest struct {
	// Module is InvoiceDocuments or OrderDocuments ("modulepart").
	Module string `json:"modulepart"`
	// File is the document's path in its module, DocumentPath(ref): the
	// ERP finds the record by the file's base name ("original_file").
	File string `json:"original_file"`
	// Template is the document model ("doctemplate"); "" is the record's.
	Template string `json:"doctemplate,omitempty"`
	// Lang is the language, "en_US" ("langcode"); "" is the ERP's.
	Lang string `json:"langcode,omitempty"`
}

// Document is a file of the ERP's, as its Documents API answers it.
type Document struct {
	Filename    string `json:"filename"`
	ContentType string `json:"content-type"`
	Size        ID     `json:"filesize"`
	// Content is the file, decoded from the answer's base64.
	Content  []byte `json:"-"`
	Encoded  string `json:"content"`
	Encoding string `json:"encoding"`
	// Lang and Template are what BuildDocument built with.
	Lang     string `json:"langcode"`
	Template string `json:"template"`
}

// decode fills Content from the answer's content.
func (d *Document) decode(op string) (*Document, error) {
	if d.Encoding != "" && d.Encoding != "base64" {
		return nil, fmt.Errorf("erp: %s: the document is encoded as %q, not base64", op, d.Encoding)
	}
	b, err := base64.StdEncoding.DecodeString(d.Encoded)
	if err != nil {
		return nil, fmt.Errorf("erp: %s: the document's content: %w", op, err)
	}
	if d.Size != 0 && int(d.Size) != len(b) {
		return nil, fmt.Errorf("erp: %s: the document has %d bytes, the answer says %d", op, len(b), d.Size)
	}
	d.Content, d.Encoded = b, ""
	return d, nil
}

// BuildDocument builds a record's document (an invoice's or an order's
// PDF, with its lines and totals) and returns it; the ERP keeps it for
// DownloadDocument. An unknown record is ErrNotFound, a module the ERP
// builds no document for ErrForbidden.
//
// ERP API: PUT /documents/builddoc
func (c *Client) BuildDocument(ctx context.Context, req *BuildDocumentRequest) (*Document, error) {
	if req == nil {
		return nil, fmt.Errorf("erp: BuildDocument needs a request")
	}
	d, err := do[Document](ctx, c, http.MethodPut, "/documents/builddoc", nil, req)
	if err != nil {
		return nil, err
	}
	return d.decode("PUT /documents/builddoc")
}

// DownloadDocument returns a document the ERP keeps: module and file as
// BuildDocumentRequest names them. One never built is ErrNotFound ("File
// not found").
//
// ERP API: GET /documents/download
func (c *Client) DownloadDocument(ctx context.Context, module, file string) (*Document, error) {
	d, err := do[Document](ctx, c, http.MethodGet, "/documents/download", url.Values{"modulepart": {module}, "original_file": {file}}, nil)
	if err != nil {
		return nil, err
	}
	return d.decode("GET /documents/download")
}
