package erp_test

import (
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/apitwin/apitwin/erp"
	"github.com/apitwin/apitwin/fake/erpfake"
)

func TestThirdparties(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	name := "apitwin-" + unique()
	tp, err := tg.c.CreateThirdparty(ctx, &erp.CreateThirdpartyRequest{Name: name, Client: erp.Customer, Email: "a@example.com", Town: "Lyon",
		Extra: map[string]any{"name_alias": "overridden", "url": "https://acme.example"}})
	if err != nil {
		t.Fatal(err)
	}
	if tp.Name != name || tp.Client != erp.Customer || !tp.Client.IsCustomer() || bool(tp.Supplier) || !bool(tp.Active) || tp.CustomerCode == "" || tp.Town != "Lyon" {
		t.Fatalf("created %+v", tp)
	}
	got, err := tg.c.GetThirdparty(ctx, tp.ID)
	if err != nil {
		t.Fatal(err)
	}
	if d := diff(tp, got); d != "" {
		t.Fatalf("get differs (-create +get):\n%s", d)
	}
	upd, err := tg.c.UpdateThirdparty(ctx, tp.ID, &erp.UpdateThirdpartyRequest{Supplier: erp.Ptr(erp.Bool(true)), Town: erp.Ptr("Paris")})
	if err != nil || !bool(upd.Supplier) || upd.Town != "Paris" || upd.Name != name || upd.SupplierCode == "" {
		t.Fatalf("updated %+v %v", upd, err)
	}
	if _, err := tg.c.GetThirdparty(ctx, 987654321); !errors.Is(err, erp.ErrNotFound) {
		t.Fatalf("missing: %v", err)
	}
}

func TestThirdpartyNameRequired(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	srv := tg.needFake(t)
	if _, err := tg.c.CreateThirdparty(ctx, &erp.CreateThirdpartyRequest{Name: "  "}); err == nil {
		t.Fatal("blank name passed the client")
	}
	// The server says the same when the client's check is bypassed.
	for _, body := range []string{`{"client":1}`, `{"name":"  ","client":1}`} {
		status, got := rawPost(t, srv, "/thirdparties", body)
		if status != 400 || got != `{"error":{"code":400,"message":"Bad Request: name field missing"}}` {
			t.Errorf("%s: %d %s", body, status, got)
		}
	}
	tp := tg.customer(t)
	if _, err := tg.c.UpdateThirdparty(ctx, tp.ID, &erp.UpdateThirdpartyRequest{Name: erp.Ptr("")}); !errors.Is(err, erp.ErrBadRequest) {
		t.Fatalf("emptying the name: %v", err)
	}
}

func TestThirdpartyListModes(t *testing.T) {
	t.Parallel()
	srv := erpfake.Start(t)
	for _, seed := range []erpfake.ThirdpartySeed{
		{Name: "Customer", Client: 1}, {Name: "Prospect", Client: 2}, {Name: "Both", Client: 3},
		{Name: "Supplier", Supplier: true}, {Name: "Nobody"},
	} {
		if _, err := srv.AddThirdparty(seed); err != nil {
			t.Fatal(err)
		}
	}
	c := srv.Client()
	for _, tc := range []struct {
		mode int
		want []string
	}{
		{0, []string{"Customer", "Prospect", "Both", "Supplier", "Nobody"}},
		{erp.ModeCustomers, []string{"Customer", "Both"}},
		{erp.ModeProspects, []string{"Prospect", "Both"}},
		{erp.ModeNeither, []string{"Supplier", "Nobody"}},
		{erp.ModeSuppliers, []string{"Supplier"}},
	} {
		page, err := c.ListThirdparties(ctx, &erp.ListThirdpartiesOptions{Mode: tc.mode})
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tp := range page.Items {
			names = append(names, tp.Name)
		}
		if !slices.Equal(names, tc.want) {
			t.Errorf("mode %d: %v, want %v", tc.mode, names, tc.want)
		}
	}
	byName, err := c.ListThirdparties(ctx, &erp.ListThirdpartiesOptions{ListOptions: erp.ListOptions{SortField: "t.nom", SortOrder: erp.Desc, Limit: 2}})
	if err != nil || len(byName.Items) != 2 || byName.Items[0].Name != "Supplier" || byName.Items[1].Name != "Prospect" || !byName.More {
		t.Fatalf("sorted by name: %+v %v", byName, err)
	}
}

// rawPost sends a JSON body to the API by hand with admin's key, to see
// exactly what the server answers when the client's checks are bypassed.
func rawPost(t *testing.T, srv *erpfake.Server, path, body string) (int, string) {
	t.Helper()
	return rawDo(t, srv, http.MethodPost, path, "application/json", body)
}

func rawDo(t *testing.T, srv *erpfake.Server, method, path, contentType, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(method, srv.URL()+"/api/index.php"+path, strings.NewReader(body))
	req.Header.Set("ERPAPIKEY", srv.APIKey())
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b strings.Builder
	_, _ = io.Copy(&b, resp.Body)
	return resp.StatusCode, b.String()
}
