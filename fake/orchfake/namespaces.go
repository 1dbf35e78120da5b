package orchfake

import (
	"context"
	"net/mail"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/apitwin/apitwin/fake/orchfake/internal/visibility"
	"github.com/apitwin/apitwin/internal/orchwire"
	"github.com/apitwin/apitwin/orch/orchpb"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/durationpb"
)

// Namespace rules (see doc.go).
const (
	// DefaultNamespace exists in every fake from the start.
	DefaultNamespace = "default"
	// DefaultRetention is the retention of a namespace registered without one.
	DefaultRetention = 72 * time.Hour
	// MinRetention and MaxRetention bound a namespace's retention.
	MinRetention = 24 * time.Hour
	MaxRetention = 3650 * 24 * time.Hour
	// ClusterName is the fake's one cluster, the only name replication
	// settings may use.
	ClusterName = "active"
)

var namespaceName = regexp.MustCompile(`^[a-zA-Z0-9][a-zA-Z0-9._-]{1,254}$`)

func validateNamespaceRequest(req *orchpb.RegisterNamespaceRequest) error {
	var v violations
	v.check(namespaceName.MatchString(req.GetNamespace()), "namespace",
		"must be 2 to 255 characters of letters, digits, '.', '_' and '-', starting with a letter or digit")
	if r := req.GetWorkflowExecutionRetentionPeriod(); r != nil {
		d := r.AsDuration()
		v.check(r.IsValid() && d >= MinRetention && d <= MaxRetention, "workflow_execution_retention_period",
			"must be between 1 day (\"86400s\") and 3650 days")
	}
	if e := req.GetOwnerEmail(); e != "" {
		_, err := mail.ParseAddress(e)
		v.check(err == nil && !strings.ContainsAny(e, "<>"), "owner_email", "not an email address")
	}
	v.check(len(req.GetDescription()) <= 1024, "description", "longer than 1024 bytes")
	for i, c := range req.GetClusters() {
		v.check(c.GetClusterName() == ClusterName, "clusters", "entry %d: unknown cluster %q (the fake's cluster is %q)", i, c.GetClusterName(), ClusterName)
	}
	if a := req.GetActiveClusterName(); a != "" {
		v.check(a == ClusterName, "active_cluster_name", "unknown cluster %q (the fake's cluster is %q)", a, ClusterName)
	}
	for _, ac := range []struct {
		field string
		cfg   *orchpb.ArchivalConfig
	}{{"history_archival_config", req.GetHistoryArchivalConfig()}, {"visibility_archival_config", req.GetVisibilityArchivalConfig()}} {
		if ac.cfg == nil {
			continue
		}
		if _, ok := orchpb.ArchivalState_name[int32(ac.cfg.GetState())]; !ok {
			v.add(ac.field+".state", "unknown state %d", ac.cfg.GetState())
		}
		if ac.cfg.GetState() == orchpb.ArchivalState_ENABLED {
			v.check(strings.Contains(ac.cfg.GetUri(), "://"), ac.field+".uri", "required when state is ENABLED (a URI such as \"file:///tmp/archive\")")
		}
	}
	if err := v.err(); err != nil {
		return err
	}
	return nil
}

// addNamespace registers a validated request; s.mu must be held.
func (st *state) addNamespace(req *orchpb.RegisterNamespaceRequest) *namespace {
	retention := DefaultRetention
	if r := req.GetWorkflowExecutionRetentionPeriod(); r != nil {
		retention = r.AsDuration()
	}
	cfg := &orchpb.NamespaceConfig{
		WorkflowExecutionRetentionTtl: durationpb.New(retention),
		HistoryArchivalState:          orchpb.ArchivalState_DISABLED,
		VisibilityArchivalState:       orchpb.ArchivalState_DISABLED,
	}
	if a := req.GetHistoryArchivalConfig(); a != nil && a.GetState() != orchpb.ArchivalState_ARCHIVAL_STATE_UNSPECIFIED {
		cfg.HistoryArchivalState, cfg.HistoryArchivalUri = a.GetState(), a.GetUri()
	}
	if a := req.GetVisibilityArchivalConfig(); a != nil && a.GetState() != orchpb.ArchivalState_ARCHIVAL_STATE_UNSPECIFIED {
		cfg.VisibilityArchivalState, cfg.VisibilityArchivalUri = a.GetState(), a.GetUri()
	}
	clusters := []*orchpb.ClusterReplicationConfig{{ClusterName: ClusterName}}
	ns := &namespace{
		st: st,
		info: &orchpb.NamespaceInfo{
			Name: req.GetNamespace(), State: orchpb.NamespaceState_REGISTERED,
			Description: req.GetDescription(), OwnerEmail: req.GetOwnerEmail(),
			Data: cloneMap(req.GetData()), Id: newID(),
		},
		config:      cfg,
		replication: &orchpb.NamespaceReplicationConfig{ActiveClusterName: ClusterName, Clusters: clusters},
		global:      req.GetIsGlobalNamespace(),
		schema:      visibility.NewSchema(),
		workflows:   map[string]*workflow{},
		runs:        map[string]*execution{},
		starts:      map[string]*execution{},
		queues:      map[string]*taskQueue{},
	}
	if ns.global {
		ns.failoverVersion = 1
	}
	st.namespaces[ns.info.Name] = ns
	return ns
}

func cloneMap(m map[string]string) map[string]string {
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func (ns *namespace) describe() *orchpb.DescribeNamespaceResponse {
	return &orchpb.DescribeNamespaceResponse{
		NamespaceInfo:     proto.Clone(ns.info).(*orchpb.NamespaceInfo),
		Config:            proto.Clone(ns.config).(*orchpb.NamespaceConfig),
		ReplicationConfig: proto.Clone(ns.replication).(*orchpb.NamespaceReplicationConfig),
		FailoverVersion:   ns.failoverVersion,
		IsGlobalNamespace: ns.global,
	}
}

func (ns *namespace) retention() time.Duration {
	return ns.config.GetWorkflowExecutionRetentionTtl().AsDuration()
}

// namespace finds a namespace; s.mu must be held.
func (st *state) namespace(name string) (*namespace, error) {
	if name == "" {
		return nil, badField("namespace", "required")
	}
	ns := st.namespaces[name]
	if ns == nil {
		return nil, notFoundNamespace(name)
	}
	return ns, nil
}

func (s *Server) registerNamespace(ctx context.Context, req *orchpb.RegisterNamespaceRequest) (*orchpb.RegisterNamespaceResponse, error) {
	if err := validateNamespaceRequest(req); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, dup := s.st.namespaces[req.GetNamespace()]; dup {
		return nil, errorf(orchwire.AlreadyExists, "namespace %q already exists", req.GetNamespace())
	}
	if len(s.st.namespaces) >= s.maxRecords() {
		return nil, s.full("namespaces")
	}
	s.st.addNamespace(req)
	return &orchpb.RegisterNamespaceResponse{}, nil
}

func (s *Server) describeNamespace(ctx context.Context, req *orchpb.DescribeNamespaceRequest) (*orchpb.DescribeNamespaceResponse, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ns, err := s.st.namespace(req.GetNamespace())
	if err != nil {
		return nil, err
	}
	return ns.describe(), nil
}

// Page sizes of ListNamespaces.
const (
	defaultNamespacePage = 100
	maxNamespacePage     = 1000
)

func (s *Server) listNamespaces(ctx context.Context, req *orchpb.ListNamespacesRequest) (*orchpb.ListNamespacesResponse, error) {
	size, err := pageSize(req.GetPageSize(), defaultNamespacePage, maxNamespacePage, "page_size")
	if err != nil {
		return nil, err
	}
	after := ""
	if tok := req.GetNextPageToken(); len(tok) > 0 {
		if after, err = parseNameToken(tok); err != nil {
			return nil, err
		}
	}
	p, _ := ctx.Value(principalKey{}).(*principal)
	s.mu.Lock()
	defer s.mu.Unlock()
	names := make([]string, 0, len(s.st.namespaces))
	for name := range s.st.namespaces {
		if name > after && p.coversNamespace(name) {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	resp := &orchpb.ListNamespacesResponse{}
	for i, name := range names {
		if i == size {
			resp.NextPageToken = nameToken(names[i-1])
			break
		}
		resp.Namespaces = append(resp.Namespaces, s.st.namespaces[name].describe())
	}
	return resp, nil
}

// pageSize reads a requested page size: 0 means def, above max is
// refused.
func pageSize(n int32, def, maxSize int, field string) (int, error) {
	switch {
	case n == 0:
		return def, nil
	case n < 0 || int(n) > maxSize:
		return 0, badField(field, "must be between 1 and %d", maxSize)
	}
	return int(n), nil
}
