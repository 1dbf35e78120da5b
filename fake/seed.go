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
	"strings"

	"github.com/apitwin/apitwin/fake/cloudauthfake"
	"github.com/apitwin/apitwin/fake/erpfake"
	"github.com/apitwin/apitwin/fake/orchfake"
	"github.com/apitwin/apitwin/fake/sourcehostfake"
	"go.yaml.in/yaml/v3"
)

// Seed is data to load into the fakes when they start: for the apitwin-fake
// program's --seed flag (a JSON or YAML file in this shape) and for tests
// that want the same data every time (WithSeed). Each part is the fake's
// own seed type, so everything a fake can be seeded with can be written
// here; every part is optional.
//
//	erp:        # erpfake.Seed
//	  users:        [{login: jdoe, password: s3cret}]
//	  thirdparties: [{name: Acme Corp, customer: true}]
//	  products:     [{ref: WIDGET-1, label: Widget, price: "12.50"}]
//	  invoices:     [{thirdparty: Acme Corp, lines: [{product: WIDGET-1, qty: "2"}], validated: true}]
//	cloudauth:  # cloudauthfake.Seed
//	  users:        [{username: alice, password: s3cret, tenant: acme}]
//	orch:       # orchfake.Seed
//	  namespaces: [{name: orders, retention: 72h, search_attributes: {CustomerId: Keyword}}]
//	  executions: [{namespace: orders, workflow_id: order-1, workflow_type: Order, status: COMPLETED}]
//	sourcehost: # sourcehostfake.Seed
//	  users:    [{username: alice, name: Alice Liddell}]
//	  projects: [{name: shop, owner: alice, files: {README.md: "# Shop"}}]
//
// Field names are snake_case in both formats; an unknown field is an
// error, so a typo does not go unnoticed. DemoSeed is a ready-made one.
type Seed struct {
	ERP        erpfake.Seed        `json:"erp,omitzero" yaml:"erp,omitempty"`
	CloudAuth  cloudauthfake.Seed  `json:"cloudauth,omitzero" yaml:"cloudauth,omitempty"`
	Orch       orchfake.Seed       `json:"orch,omitzero" yaml:"orch,omitempty"`
	SourceHost sourcehostfake.Seed `json:"sourcehost,omitzero" yaml:"sourcehost,omitempty"`
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

// Load loads seed into the running fakes: what apitwin-fake's --seed and
// its control API's seed do. The seed is tried first on empty fakes of its
// own, so that one any fake refuses changes nothing and the error names
// the entry ("fake: seed erp.products[1]: …"); a seed is therefore
// self-contained (it names only what it adds and what it brings along), as
// a --seed file is.
func (f *Fakes) Load(seed *Seed) error {
	if seed == nil {
		return nil
	}
	trial := &Fakes{}
	defer trial.Close()
	var errs [4]error
	trial.ERP, errs[0] = erpfake.New()
	trial.CloudAuth, errs[1] = cloudauthfake.New()
	trial.Orch, errs[2] = orchfake.New()
	trial.SourceHost, errs[3] = sourcehostfake.New()
	if err := errors.Join(errs[:]...); err != nil {
		return fmt.Errorf("fake: seed: the fakes it is tried on: %w", err)
	}
	if err := seed.apply(trial); err != nil {
		return err
	}
	return seed.apply(f)
}

// apply loads the seed into running fakes, through each fake's Load. The
// first refusal stops it, named by service and entry
// ("fake: seed erp.products[1]: …").
func (s *Seed) apply(f *Fakes) error {
	for _, part := range []struct {
		name string
		load func() error
	}{
		{"erp", func() error { return f.ERP.Load(s.ERP) }},
		{"cloudauth", func() error { return f.CloudAuth.Load(s.CloudAuth) }},
		{"orch", func() error { return f.Orch.Load(s.Orch) }},
		{"sourcehost", func() error { return f.SourceHost.Load(s.SourceHost) }},
	} {
		if err := part.load(); err != nil {
			return fmt.Errorf("fake: seed %s.%w", part.name, err)
		}
	}
	return nil
}
