package fake

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/apitwin/apitwin/fake/cloudauthfake"
	"github.com/apitwin/apitwin/fake/erpfake"
	"github.com/apitwin/apitwin/fake/orchfake"
	"github.com/apitwin/apitwin/fake/sourcehostfake"
	"github.com/apitwin/apitwin/orch/orchpb"
	"go.yaml.in/yaml/v3"
	"google.golang.org/protobuf/types/known/durationpb"
)

// Seed is data to load into the fakes when they start: for the apitwin-fake
// program's --seed flag (a JSON or YAML file in this shape) and for tests
// that want the same data every time (WithSeed). Every part is optional.
//
//	erp:
//	  users:        [{login: jdoe, password: s3cret, admin: false}]
//	  thirdparties: [{name: Acme Corp, customer: true}]
//	  products:     [{ref: WIDGET-1, label: Widget, price: "12.50"}]
//	cloudauth:
//	  users:        [{username: alice, password: s3cret, tenant: acme, locked: false}]
//	orch:
//	  namespaces: [{name: orders, description: Order fulfilment, retention: 72h,
//	                search_attributes: {CustomerId: Keyword, Amount: Double}}]
//	sourcehost:
//	  users:    [{username: alice, name: Alice Liddell}]
//	  projects: [{name: shop, owner: alice, description: The web shop,
//	              files: {README.md: "# Shop"}}]
//
// Field names are as shown (snake_case in both formats); an unknown field is
// an error, so a typo does not go unnoticed. DemoSeed is a ready-made one.
type Seed struct {
	ERP        ERPSeed        `json:"erp" yaml:"erp"`
	CloudAuth  CloudAuthSeed  `json:"cloudauth" yaml:"cloudauth"`
	Orch       OrchSeed       `json:"orch" yaml:"orch"`
	SourceHost SourceHostSeed `json:"sourcehost" yaml:"sourcehost"`
}

// ERPSeed is the ERP part of a Seed.
type ERPSeed struct {
	Users []struct {
		Login     string `json:"login" yaml:"login"`
		Password  string `json:"password" yaml:"password"`
		Firstname string `json:"firstname" yaml:"firstname"`
		Lastname  string `json:"lastname" yaml:"lastname"`
		Email     string `json:"email" yaml:"email"`
		Admin     bool   `json:"admin" yaml:"admin"`
	} `json:"users" yaml:"users"`
	Thirdparties []struct {
		Name     string `json:"name" yaml:"name"`
		Customer bool   `json:"customer" yaml:"customer"`
		Supplier bool   `json:"supplier" yaml:"supplier"`
		Email    string `json:"email" yaml:"email"`
		Town     string `json:"town" yaml:"town"`
		Country  string `json:"country" yaml:"country"`
	} `json:"thirdparties" yaml:"thirdparties"`
	Products []struct {
		Ref     string `json:"ref" yaml:"ref"`
		Label   string `json:"label" yaml:"label"`
		Price   string `json:"price" yaml:"price"`
		VATRate string `json:"vat_rate" yaml:"vat_rate"`
		Service bool   `json:"service" yaml:"service"`
	} `json:"products" yaml:"products"`
}

// CloudAuthSeed is the cloud login part of a Seed.
type CloudAuthSeed struct {
	Users []struct {
		Username string `json:"username" yaml:"username"`
		Password string `json:"password" yaml:"password"`
		// Tenant empty: the fake's default tenant.
		Tenant string `json:"tenant" yaml:"tenant"`
		Name   string `json:"name" yaml:"name"`
		Email  string `json:"email" yaml:"email"`
		Locked bool   `json:"locked" yaml:"locked"`
	} `json:"users" yaml:"users"`
}

// OrchSeed is the orchestration part of a Seed. The "default" namespace
// always exists; its search attributes can be added by naming it here.
type OrchSeed struct {
	Namespaces []struct {
		Name        string `json:"name" yaml:"name"`
		Description string `json:"description" yaml:"description"`
		// Retention is a Go duration ("72h"); empty: the fake's default.
		Retention string `json:"retention" yaml:"retention"`
		// SearchAttributes are custom search attributes by name, with
		// their type: Keyword, Text, Int, Double, Bool, Datetime or
		// KeywordList.
		SearchAttributes map[string]string `json:"search_attributes" yaml:"search_attributes"`
	} `json:"namespaces" yaml:"namespaces"`
}

// SourceHostSeed is the sourcehost part of a Seed.
type SourceHostSeed struct {
	Users []struct {
		Username string `json:"username" yaml:"username"`
		Name     string `json:"name" yaml:"name"`
	} `json:"users" yaml:"users"`
	Projects []struct {
		Name          string            `json:"name" yaml:"name"`
		Owner         string            `json:"owner" yaml:"owner"`
		Group         string            `json:"group" yaml:"group"`
		Description   string            `json:"description" yaml:"description"`
		Visibility    string            `json:"visibility" yaml:"visibility"`
		DefaultBranch string            `json:"default_branch" yaml:"default_branch"`
		Topics        []string          `json:"topics" yaml:"topics"`
		Files         map[string]string `json:"files" yaml:"files"`
	} `json:"projects" yaml:"projects"`
}

//go:embed demo.yaml
var demoSeed []byte

// DemoSeed is the seed of `apitwin-fake --seed demo`: a few customers and
// products in the ERP, a cloud login user, an orders namespace with search
// attributes, a user and a project in sourcehost.
func DemoSeed() *Seed {
	s, err := ParseSeed(demoSeed, "demo.yaml")
	if err != nil {
		panic("fake: the embedded demo seed does not parse: " + err.Error())
	}
	return s
}

// LoadSeed reads a seed file: YAML for .yaml and .yml, JSON otherwise.
func LoadSeed(path string) (*Seed, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("fake: seed: %w", err)
	}
	return ParseSeed(data, path)
}

// ParseSeed reads a seed from data; name's extension chooses the format
// (.yaml or .yml: YAML, otherwise JSON). Unknown fields are errors.
func ParseSeed(data []byte, name string) (*Seed, error) {
	var s Seed
	switch strings.ToLower(filepath.Ext(name)) {
	case ".yaml", ".yml":
		dec := yaml.NewDecoder(bytes.NewReader(data))
		dec.KnownFields(true)
		if err := dec.Decode(&s); err != nil && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("fake: seed %s: %w", name, err)
		}
	default:
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&s); err != nil {
			return nil, fmt.Errorf("fake: seed %s: %w", name, err)
		}
		if dec.More() {
			return nil, fmt.Errorf("fake: seed %s: more than one JSON value", name)
		}
	}
	return &s, nil
}

// apply loads the seed into running fakes. The first refusal stops it, named
// by service and entry.
func (s *Seed) apply(f *Fakes) error {
	for i, u := range s.ERP.Users {
		if _, err := f.ERP.AddUser(erpfake.UserSeed{Login: u.Login, Password: u.Password, Firstname: u.Firstname,
			Lastname: u.Lastname, Email: u.Email, Admin: u.Admin}); err != nil {
			return fmt.Errorf("fake: seed erp.users[%d]: %w", i, err)
		}
	}
	for i, t := range s.ERP.Thirdparties {
		client := 0
		if t.Customer {
			client = 1
		}
		if _, err := f.ERP.AddThirdparty(erpfake.ThirdpartySeed{Name: t.Name, Client: client, Supplier: t.Supplier,
			Email: t.Email, Town: t.Town, CountryCode: t.Country}); err != nil {
			return fmt.Errorf("fake: seed erp.thirdparties[%d]: %w", i, err)
		}
	}
	for i, p := range s.ERP.Products {
		if _, err := f.ERP.AddProduct(erpfake.ProductSeed{Ref: p.Ref, Label: p.Label, Price: p.Price,
			VATRate: p.VATRate, Service: p.Service}); err != nil {
			return fmt.Errorf("fake: seed erp.products[%d]: %w", i, err)
		}
	}
	for i, u := range s.CloudAuth.Users {
		if err := f.CloudAuth.AddUser(cloudauthfake.UserSeed{Username: u.Username, Password: u.Password, Tenant: u.Tenant,
			Name: u.Name, Email: u.Email, Locked: u.Locked}); err != nil {
			return fmt.Errorf("fake: seed cloudauth.users[%d]: %w", i, err)
		}
	}
	for i, ns := range s.Orch.Namespaces {
		if ns.Name != "default" {
			req := &orchpb.RegisterNamespaceRequest{Namespace: ns.Name, Description: ns.Description}
			if ns.Retention != "" {
				d, err := time.ParseDuration(ns.Retention)
				if err != nil {
					return fmt.Errorf("fake: seed orch.namespaces[%d].retention: %w", i, err)
				}
				req.WorkflowExecutionRetentionPeriod = durationpb.New(d)
			}
			if err := f.Orch.AddNamespace(req); err != nil {
				return fmt.Errorf("fake: seed orch.namespaces[%d]: %w", i, err)
			}
		}
		names := make([]string, 0, len(ns.SearchAttributes))
		for name := range ns.SearchAttributes {
			names = append(names, name)
		}
		sort.Strings(names) // the first bad one named is always the same
		for _, name := range names {
			typ := orchfake.SearchAttributeType(ns.SearchAttributes[name])
			if err := f.Orch.RegisterSearchAttribute(ns.Name, name, typ); err != nil {
				return fmt.Errorf("fake: seed orch.namespaces[%d].search_attributes.%s: %w", i, name, err)
			}
		}
	}
	for i, u := range s.SourceHost.Users {
		if _, err := f.SourceHost.AddUser(sourcehostfake.UserSeed{Username: u.Username, Name: u.Name}); err != nil {
			return fmt.Errorf("fake: seed sourcehost.users[%d]: %w", i, err)
		}
	}
	for i, p := range s.SourceHost.Projects {
		id, err := f.SourceHost.AddProject(sourcehostfake.ProjectSeed{Owner: p.Owner, Group: p.Group, Name: p.Name,
			Description: p.Description, Visibility: p.Visibility, DefaultBranch: p.DefaultBranch, Topics: p.Topics})
		if err != nil {
			return fmt.Errorf("fake: seed sourcehost.projects[%d]: %w", i, err)
		}
		if len(p.Files) > 0 {
			files := make(map[string][]byte, len(p.Files))
			for path, content := range p.Files {
				files[path] = []byte(content)
			}
			branch := p.DefaultBranch
			if branch == "" {
				branch = "main"
			}
			if _, err := f.SourceHost.PushFiles(id, branch, files, "Seed files"); err != nil {
				return fmt.Errorf("fake: seed sourcehost.projects[%d].files: %w", i, err)
			}
		}
	}
	return nil
}
