package orchfake

import (
	"context"
	"fmt"
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
	checkRetention(&v, "workflow_execution_retention_period", req.GetWorkflowExecutionRetentionPeriod())
	checkOwnerEmail(&v, "owner_email", req.GetOwnerEmail())
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
		if ac.cfg != nil {
			checkArchival(&v, ac.field, ac.cfg.GetState(), ac.cfg.GetUri())
		}
	}
	if err := v.err(); err != nil {
		return err
	}
	return nil
}

// checkRetention checks a retention given at registration or update.
func checkRetention(v *violations, field string, r *durationpb.Duration) {
	if r == nil {
		return
	}
	d := r.AsDuration()
	v.check(r.IsValid() && d >= MinRetention && d <= MaxRetention, field, "must be between 1 day (\"86400s\") and 3650 days")
}

// checkOwnerEmail checks an owner_email given at registration or update.
func checkOwnerEmail(v *violations, field, e string) {
	if e == "" {
		return
	}
	_, err := mail.ParseAddress(e)
	v.check(err == nil && !strings.ContainsAny(e, "<>"), field, "not an email address")
}

// checkArchival checks an archival state and URI given at registration or
// update.
func checkArchival(v *violations, field string, state orchpb.ArchivalState, uri string) {
	if _, ok := orchpb.ArchivalState_name[int32(state)]; !ok {
		v.add(field+".state", "unknown state %d", state)
	}
	if state == orchpb.ArchivalState_ENABLED {
		v.check(strings.Contains(uri, "://"), field+".uri", "required when state is ENABLED (a URI such as \"file:///tmp/archive\")")
	}
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

// maxDescription bounds a namespace's description, in bytes.
const maxDescription = 1024

func (s *Server) updateNamespace(ctx context.Context, req *orchpb.UpdateNamespaceRequest) (*orchpb.UpdateNamespaceResponse, error) {
	info, cfg := req.GetUpdateInfo(), req.GetConfig()
	var v violations
	v.check(len(info.GetDescription()) <= maxDescription, "update_info.description", "longer than %d bytes", maxDescription)
	checkOwnerEmail(&v, "update_info.owner_email", info.GetOwnerEmail())
	switch info.GetState() {
	case orchpb.NamespaceState_NAMESPACE_STATE_UNSPECIFIED, orchpb.NamespaceState_REGISTERED, orchpb.NamespaceState_DEPRECATED:
	case orchpb.NamespaceState_DELETED:
		v.add("update_info.state", "DELETED is DeleteNamespace's to set")
	default:
		v.add("update_info.state", "unknown state %d", info.GetState())
	}
	checkRetention(&v, "config.workflow_execution_retention_ttl", cfg.GetWorkflowExecutionRetentionTtl())
	checkArchival(&v, "config.history_archival", cfg.GetHistoryArchivalState(), cfg.GetHistoryArchivalUri())
	checkArchival(&v, "config.visibility_archival", cfg.GetVisibilityArchivalState(), cfg.GetVisibilityArchivalUri())
	if err := v.err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ns, err := s.st.namespace(req.GetNamespace())
	if err != nil {
		return nil, err
	}
	if st := info.GetState(); st == orchpb.NamespaceState_REGISTERED && ns.info.GetState() == orchpb.NamespaceState_DEPRECATED {
		// As the service: deprecation is one way.
		return nil, badField("update_info.state", "namespace %q is DEPRECATED; it cannot be REGISTERED again", ns.info.GetName())
	}
	// Nothing is changed before everything is checked; the info and config
	// are replaced, never edited in place (a describe answered earlier
	// holds clones, but the snapshot code reads them as they are).
	ni := proto.Clone(ns.info).(*orchpb.NamespaceInfo)
	if d := info.GetDescription(); d != "" {
		ni.Description = d
	}
	if e := info.GetOwnerEmail(); e != "" {
		ni.OwnerEmail = e
	}
	for k, val := range info.GetData() {
		if ni.Data == nil {
			ni.Data = map[string]string{}
		}
		ni.Data[k] = val
	}
	if st := info.GetState(); st != orchpb.NamespaceState_NAMESPACE_STATE_UNSPECIFIED {
		ni.State = st
	}
	nc := proto.Clone(ns.config).(*orchpb.NamespaceConfig)
	if r := cfg.GetWorkflowExecutionRetentionTtl(); r != nil {
		nc.WorkflowExecutionRetentionTtl = durationpb.New(r.AsDuration())
	}
	if st := cfg.GetHistoryArchivalState(); st != orchpb.ArchivalState_ARCHIVAL_STATE_UNSPECIFIED {
		nc.HistoryArchivalState, nc.HistoryArchivalUri = st, cfg.GetHistoryArchivalUri()
	}
	if st := cfg.GetVisibilityArchivalState(); st != orchpb.ArchivalState_ARCHIVAL_STATE_UNSPECIFIED {
		nc.VisibilityArchivalState, nc.VisibilityArchivalUri = st, cfg.GetVisibilityArchivalUri()
	}
	ns.info, ns.config = ni, nc
	d := ns.describe()
	return &orchpb.UpdateNamespaceResponse{NamespaceInfo: d.NamespaceInfo, Config: d.Config, ReplicationConfig: d.ReplicationConfig,
		FailoverVersion: d.FailoverVersion, IsGlobalNamespace: d.IsGlobalNamespace}, nil
}

func (s *Server) deprecateNamespace(ctx context.Context, req *orchpb.DeprecateNamespaceRequest) (*orchpb.DeprecateNamespaceResponse, error) {
	_, err := s.updateNamespace(ctx, &orchpb.UpdateNamespaceRequest{Namespace: req.GetNamespace(),
		UpdateInfo: &orchpb.UpdateNamespaceInfo{State: orchpb.NamespaceState_DEPRECATED}})
	if err != nil {
		return nil, err
	}
	return &orchpb.DeprecateNamespaceResponse{}, nil
}

// deleteNamespace removes a namespace with its runs, task queues,
// schedules and search attributes: its open runs are terminated first
// (their children elsewhere meet their parent close policy), its waiting
// polls end empty, and its schedules stop.
func (s *Server) deleteNamespace(ctx context.Context, req *orchpb.DeleteNamespaceRequest) (*orchpb.DeleteNamespaceResponse, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ns, err := s.st.namespace(req.GetNamespace())
	if err != nil {
		return nil, err
	}
	for _, e := range ns.runs {
		if e.open() {
			s.terminateLocked(e, "namespace deleted", nil, "orchfake")
		}
	}
	for _, e := range ns.runs {
		s.forgetRun(e)
	}
	for _, q := range ns.queues { // sticky queues among them
		q.endAllPolls()
	}
	for _, sc := range ns.schedules {
		sc.stop() // its timer would fire on for a namespace nobody can reach
	}
	delete(s.st.namespaces, ns.info.GetName())
	return &orchpb.DeleteNamespaceResponse{DeletedNamespace: ns.info.GetName()}, nil
}

// registered refuses a new start in a namespace that is not REGISTERED, as
// the service refuses starts in a DEPRECATED one.
func (ns *namespace) registered() error {
	if st := ns.info.GetState(); st != orchpb.NamespaceState_REGISTERED {
		return &apiError{code: orchwire.FailedPrecondition,
			msg:     fmt.Sprintf("namespace %q has invalid state %s: new workflow executions need REGISTERED", ns.info.GetName(), st),
			details: []*orchpb.ErrorDetail{{Type: "NamespaceInvalidState", Field: "namespace", Description: "state " + st.String()}}}
	}
	return nil
}
