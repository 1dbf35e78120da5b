package erp

// Line is a line of an invoice or an order.
type Line struct {
	ID           ID          `json:"id"`
	ProductID    ID          `json:"fk_product"` // 0 for a free-text line
	ProductRef   string      `json:"product_ref"`
	ProductLabel string      `json:"product_label"`
	ProductType  ProductType `json:"product_type"`
	Description  string      `json:"desc"`
	Qty          Decimal     `json:"qty"`
	Subprice     Decimal     `json:"subprice"`       // unit price before tax and discount
	Discount     Decimal     `json:"remise_percent"` // percent
	VATRate      Decimal     `json:"tva_tx"`         // percent
	TotalHT      Decimal     `json:"total_ht"`       // before tax
	TotalTVA     Decimal     `json:"total_tva"`      // the tax
	TotalTTC     Decimal     `json:"total_ttc"`      // with tax
	Rank         int         `json:"rang"`           // position in the document
	Extra        Extra       `json:"-"`
}

var lineKeys = keysOf[Line]("rowid")

// UnmarshalJSON decodes a line, keeping unknown fields in Extra. Its id
// comes from "id" or, in versions that send only that, "rowid".
func (l *Line) UnmarshalJSON(b []byte) error {
	type plain Line
	var w struct {
		*plain
		Rank  *ID `json:"rang"`
		RowID *ID `json:"rowid"`
	}
	w.plain = (*plain)(l)
	if err := decodeRecord(b, &w, lineKeys, &l.Extra); err != nil {
		return err
	}
	if l.ID == 0 && w.RowID != nil {
		l.ID = *w.RowID
	}
	if w.Rank != nil {
		l.Rank = int(*w.Rank)
	}
	return nil
}

// MarshalJSON encodes a line with its Extra fields.
func (l Line) MarshalJSON() ([]byte, error) {
	type plain Line
	return marshalRecord(plain(l), l.Extra)
}

// LineRequest is a line of a new invoice or order. A line names a product
// (ProductID) or is free text (Description). Qty is required; a nil
// Subprice or VATRate takes the product's price or VAT rate, and a
// free-text line needs a Subprice.
type LineRequest struct {
	ProductID   ID           `json:"fk_product,omitempty"`
	Qty         Decimal      `json:"qty"`
	Subprice    *Decimal     `json:"subprice,omitempty"`
	VATRate     *Decimal     `json:"tva_tx,omitempty"`
	Discount    *Decimal     `json:"remise_percent,omitempty"`
	Description string       `json:"desc,omitempty"`
	ProductType *ProductType `json:"product_type,omitempty"`
}
