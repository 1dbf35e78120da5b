package cloudauth_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/apitwin/apitwin/cloudauth"
	"github.com/apitwin/apitwin/internal/credential"
	"github.com/apitwin/apitwin/internal/leaktest"
)

func TestConfigRoundTrip(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "cloudctl")
	cfg, err := cloudauth.LoadConfig(dir)
	if err != nil || len(cfg.Profiles) != 0 || cfg.Current != "" {
		t.Fatalf("missing file: %+v %v", cfg, err)
	}
	if err := cfg.Add(cloudauth.Profile{Name: "prod", URL: "https://cloud.example.com", Tenant: "acme"}); err != nil {
		t.Fatal(err)
	}
	if err := cfg.Add(cloudauth.Profile{Name: "dev", URL: "http://127.0.0.1:8080", Username: "alice"}); err != nil {
		t.Fatal(err)
	}
	if err := cfg.Use("prod"); err != nil {
		t.Fatal(err)
	}
	if err := cfg.Use("nope"); err == nil {
		t.Fatal("used a missing profile")
	}
	if err := cfg.Save(dir); err != nil {
		t.Fatal(err)
	}
	got, err := cloudauth.LoadConfig(dir)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(cfg, got, cmpopts.IgnoreUnexported(cloudauth.Config{})); diff != "" {
		t.Fatalf("(-saved +loaded):\n%s", diff)
	}
	if names := []string{got.List()[0].Name, got.List()[1].Name}; names[0] != "dev" || names[1] != "prod" {
		t.Fatalf("list order %v", names)
	}
	if runtime.GOOS != "windows" {
		if fi, _ := os.Stat(filepath.Join(dir, cloudauth.ConfigFileName)); fi.Mode().Perm() != 0o600 {
			t.Fatalf("file mode %v", fi.Mode())
		}
		if fi, _ := os.Stat(dir); fi.Mode().Perm() != 0o700 {
			t.Fatalf("dir mode %v", fi.Mode())
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("temporary files left: %v", entries)
	}
}

func TestConfigRefusesBadInput(t *testing.T) {
	t.Parallel()
	for name, content := range map[string]string{
		"not JSON":        `url = "x"`,
		"bad URL":         `{"profiles":{"a":{"url":"ftp://x"}}}`,
		"bad name":        `{"profiles":{"../x":{"url":"https://x"}}}`,
		"missing current": `{"current_profile":"b","profiles":{"a":{"url":"https://x"}}}`,
	} {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, cloudauth.ConfigFileName), []byte(content), 0o600)
		if _, err := cloudauth.LoadConfig(dir); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	var cfg cloudauth.Config
	for _, p := range []cloudauth.Profile{
		{Name: "", URL: "https://x"}, {Name: "a b", URL: "https://x"}, {Name: "a", URL: ""},
		{Name: "a", URL: "https://user:pw@x"}, {Name: "a", URL: "x.example.com"}, {Name: strings.Repeat("a", 65), URL: "https://x"},
	} {
		if err := cfg.Add(p); err == nil {
			t.Errorf("Add(%+v) accepted", p)
		}
	}
}

func TestResolveSettings(t *testing.T) {
	t.Parallel()
	cfg := &cloudauth.Config{Current: "prod", Profiles: map[string]cloudauth.Profile{
		"prod": {Name: "prod", URL: "https://prod.example.com", Tenant: "acme", Username: "alice"},
		"dev":  {Name: "dev", URL: "https://dev.example.com"},
	}}
	env := func(kv ...string) func(string) string {
		m := map[string]string{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return func(k string) string { return m[k] }
	}
	type want struct {
		Profile, URL, Tenant, Username, CACert, Token string
		VerifySSL                                     bool
	}
	cases := []struct {
		name string
		o    cloudauth.Overrides
		env  func(string) string
		cfg  *cloudauth.Config
		want want
	}{
		{"current profile", cloudauth.Overrides{}, env(), cfg,
			want{Profile: "prod", URL: "https://prod.example.com", Tenant: "acme", Username: "alice", VerifySSL: true}},
		{"CLI_PROFILE selects", cloudauth.Overrides{}, env("CLI_PROFILE", "dev"), cfg,
			want{Profile: "dev", URL: "https://dev.example.com", Tenant: "", VerifySSL: true}},
		{"flag beats CLI_PROFILE", cloudauth.Overrides{Profile: "prod"}, env("CLI_PROFILE", "dev"), cfg,
			want{Profile: "prod", URL: "https://prod.example.com", Tenant: "acme", Username: "alice", VerifySSL: true}},
		{"env beats profile", cloudauth.Overrides{}, env("CLI_URL", "https://env.example.com/", "CLI_TENANT", "t-env", "CLI_USERNAME", "bob"), cfg,
			want{Profile: "prod", URL: "https://env.example.com", Tenant: "t-env", Username: "bob", VerifySSL: true}},
		{"flag beats env", cloudauth.Overrides{URL: "https://flag.example.com", Tenant: "t-flag", Username: "carol", CACert: "/flag.pem"},
			env("CLI_URL", "https://env.example.com", "CLI_TENANT", "t-env", "CLI_USERNAME", "bob", "CLI_CA_CERT", "/env.pem"), cfg,
			want{Profile: "prod", URL: "https://flag.example.com", Tenant: "t-flag", Username: "carol", CACert: "/flag.pem", VerifySSL: true}},
		{"no profile, defaults", cloudauth.Overrides{}, env(), nil,
			want{Tenant: "", VerifySSL: true}},
		{"CLI_VERIFY_SSL=false", cloudauth.Overrides{}, env("CLI_VERIFY_SSL", "false"), nil,
			want{}},
		{"CLI_VERIFY_SSL=FALSE", cloudauth.Overrides{}, env("CLI_VERIFY_SSL", "FALSE"), nil,
			want{}},
		{"CLI_VERIFY_SSL=true", cloudauth.Overrides{}, env("CLI_VERIFY_SSL", "true"), nil,
			want{Tenant: "", VerifySSL: true}},
		{"--no-verify-ssl", cloudauth.Overrides{NoVerifySSL: true}, env("CLI_VERIFY_SSL", "true"), nil,
			want{}},
		{"CLI_TOKEN and CLI_CA_CERT", cloudauth.Overrides{}, env("CLI_TOKEN", "a.b.c", "CLI_CA_CERT", "/ca.pem"), nil,
			want{Tenant: "", Token: "a.b.c", CACert: "/ca.pem", VerifySSL: true}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s, err := cloudauth.ResolveSettings(tc.o, tc.env, tc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			got := want{s.Profile, s.URL, s.Tenant, s.Username, s.CACert, s.Token, s.VerifySSL}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Fatalf("(-want +got):\n%s", diff)
			}
		})
	}
	for name, tc := range map[string]struct {
		o   cloudauth.Overrides
		env func(string) string
	}{
		"missing profile":      {cloudauth.Overrides{Profile: "staging"}, env()},
		"bad CLI_PROFILE":      {cloudauth.Overrides{}, env("CLI_PROFILE", "../x")},
		"bad CLI_VERIFY_SSL":   {cloudauth.Overrides{}, env("CLI_VERIFY_SSL", "nope")},
		"bad CLI_URL":          {cloudauth.Overrides{}, env("CLI_URL", "cloud.example.com")},
		"URL with credentials": {cloudauth.Overrides{URL: "https://u:p@x"}, env()},
	} {
		if _, err := cloudauth.ResolveSettings(tc.o, tc.env, cfg); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestSettingsSources(t *testing.T) {
	t.Parallel()
	cfg := &cloudauth.Config{Current: "prod", Profiles: map[string]cloudauth.Profile{"prod": {Name: "prod", URL: "https://p"}}}
	s, err := cloudauth.ResolveSettings(cloudauth.Overrides{Username: "u"}, func(k string) string {
		if k == "CLI_TENANT" {
			return "t"
		}
		return ""
	}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"profile": "current profile", "url": "profile prod", "tenant": "env CLI_TENANT", "username": "flag", "verify-ssl": "default"}
	if diff := cmp.Diff(want, s.Sources); diff != "" {
		t.Fatalf("(-want +got):\n%s", diff)
	}
	if s.TokenKey() != "prod" || (&cloudauth.Settings{}).TokenKey() != cloudauth.DefaultProfileName {
		t.Fatal("TokenKey")
	}
	if n := len(s.ClientOptions()); n != 0 {
		t.Fatalf("%d client options for defaults", n)
	}
}

// TestConfigKeepsUnknownFields (issue 20, defect 4): a field this version
// does not know, at the top or in a profile (written by a newer cloudctl,
// or by hand), is kept and ignored: the file loads, and a save writes it
// back.
func TestConfigKeepsUnknownFields(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	content := `{"current_profile":"prod","colour":"red","profiles":{"prod":{"url":"https://cloud.example.com","region":{"name":"eu"}}},"future":[1,2]}`
	if err := os.WriteFile(filepath.Join(dir, cloudauth.ConfigFileName), []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := cloudauth.LoadConfig(dir)
	if err != nil {
		t.Fatal(err)
	}
	if p, ok := cfg.Profile("prod"); !ok || p.URL != "https://cloud.example.com" || cfg.Current != "prod" {
		t.Fatalf("%+v", cfg)
	}
	if err := cfg.Add(cloudauth.Profile{Name: "prod", URL: "https://cloud.example.com", Tenant: "acme"}); err != nil {
		t.Fatal(err)
	}
	if err := cfg.Add(cloudauth.Profile{Name: "dev", URL: "https://dev.example.com"}); err != nil {
		t.Fatal(err)
	}
	if err := cfg.Save(dir); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, cloudauth.ConfigFileName))
	var got map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"current_profile": "prod", "colour": "red", "future": []any{1.0, 2.0},
		"profiles": map[string]any{
			"prod": map[string]any{"url": "https://cloud.example.com", "tenant": "acme", "region": map[string]any{"name": "eu"}},
			"dev":  map[string]any{"url": "https://dev.example.com"},
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("saved file (-want +got):\n%s", diff)
	}
}

// TestConfigErrorsNameTheField (issue 20, defect 4): an invalid value is
// refused with the file, the field and the problem named.
func TestConfigErrorsNameTheField(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ content, want string }{
		{`{"profiles":{"prod":{"url":5}}}`, `profiles.prod.url: want a string, got a number`},
		{`{"profiles":{"prod":{"url":"ftp://x"}}}`, `profiles.prod.url: invalid server URL "ftp://x"`},
		{`{"profiles":{"prod":{"tenant":"t"}}}`, `profiles.prod.url: missing`},
		{`{"profiles":{"prod":{"url":"https://x","tenant":["a"]}}}`, `profiles.prod.tenant: want a string, got an array`},
		{`{"profiles":{"prod":"https://x"}}`, `profiles.prod: want an object, got a string`},
		{`{"profiles":[]}`, `profiles: want an object, got an array`},
		{`{"current_profile":true,"profiles":{}}`, `current_profile: want a string, got a boolean`},
		{`{"current_profile":"b","profiles":{"a":{"url":"https://x"}}}`, `current_profile: profile "b" does not exist`},
		{`{"profiles":{"../x":{"url":"https://x"}}}`, `profiles["../x"]: invalid profile name "../x"`},
		{`[]`, `want a JSON object, got an array`},
		{"{\n  \"profiles\": {\n    \"a\": {\"url\": \"https://x\",}\n  }\n}", `line 3, column 30: invalid character '}'`},
		{`{"profiles":{}`, `unexpected end of JSON input`},
	} {
		dir := t.TempDir()
		path := filepath.Join(dir, cloudauth.ConfigFileName)
		os.WriteFile(path, []byte(tc.content), 0o600)
		_, err := cloudauth.LoadConfig(dir)
		if err == nil || !strings.HasPrefix(err.Error(), path+": ") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s:\n got %v\nwant %s: …%s…", tc.content, err, path, tc.want)
		}
	}
}

// TestUpdateConfigConcurrently (issue 20, defect 5): twenty writers at once,
// each adding a profile, lose none: updates take the directory's lock.
func TestUpdateConfigConcurrently(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "cloudctl")
	var wg sync.WaitGroup
	errs := make(chan error, 20)
	for i := range 20 {
		wg.Go(func() {
			_, err := cloudauth.UpdateConfig(dir, func(cfg *cloudauth.Config) error {
				return cfg.Add(cloudauth.Profile{Name: fmt.Sprintf("p%d", i), URL: "https://x.example.com"})
			})
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	cfg, err := cloudauth.LoadConfig(dir)
	if err != nil || len(cfg.Profiles) != 20 {
		t.Fatalf("%d profiles, %v", len(cfg.Profiles), err)
	}
	// A refusal of fn writes nothing.
	_, err = cloudauth.UpdateConfig(dir, func(cfg *cloudauth.Config) error {
		cfg.Profiles = nil
		return errors.New("no")
	})
	if cfg, _ := cloudauth.LoadConfig(dir); err == nil || len(cfg.Profiles) != 20 {
		t.Fatalf("a refused update wrote: %v", err)
	}
}

// TestUpdateConfigRemovesLeftovers (issue 20, defect 5): the temporary file
// of a writer killed before its rename is removed by the next update.
func TestUpdateConfigRemovesLeftovers(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	left := filepath.Join(dir, "."+cloudauth.ConfigFileName+".123456.tmp")
	if err := os.WriteFile(left, []byte(`{"profiles":{`), 0o600); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(dir, "notes.tmp") // not ours: kept
	os.WriteFile(other, nil, 0o600)
	if _, err := cloudauth.UpdateConfig(dir, func(cfg *cloudauth.Config) error {
		return cfg.Add(cloudauth.Profile{Name: "a", URL: "https://x"})
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(left); !os.IsNotExist(err) {
		t.Fatalf("leftover kept: %v", err)
	}
	if _, err := os.Stat(other); err != nil {
		t.Fatalf("a file not ours was removed: %v", err)
	}
}

// TestSettingsHideTheToken: CLI_TOKEN's value never prints, in any verb or
// through slog.
func TestSettingsHideTheToken(t *testing.T) {
	t.Parallel()
	const secret = "eyJhbGciOiJSUzI1NiJ9.c2VjcmV0LXBheWxvYWQ.c2lnbmF0dXJl"
	s, err := cloudauth.ResolveSettings(cloudauth.Overrides{URL: "https://x.example.com"},
		func(k string) string { return map[string]string{"CLI_TOKEN": secret}[k] }, nil)
	if err != nil || s.Token != secret {
		t.Fatalf("%v %v", s, err)
	}
	var logged strings.Builder
	slog.New(slog.NewJSONHandler(&logged, nil)).Info("settings", "s", s, "v", *s)
	for _, out := range []string{fmt.Sprintf("%v", s), fmt.Sprintf("%+v", s), fmt.Sprintf("%#v", s), fmt.Sprintf("%v", *s),
		fmt.Sprintf("%+v", *s), fmt.Sprintf("%#v", *s), fmt.Sprint(s), logged.String()} {
		if !strings.Contains(out, credential.Redacted) {
			t.Errorf("does not say a token is set: %s", out)
		}
	}
	leaktest.NoSecretIn(t, "the settings", s, secret, "c2VjcmV0") // and by value; c2VjcmV0 is in the payload
}

// TestCheckURLNeverQuotesAPassword: a server URL refused for another
// reason than its user information (its scheme, a bad escape, a query)
// is named in the error without the password it carries.
func TestCheckURLNeverQuotesAPassword(t *testing.T) {
	t.Parallel()
	for _, raw := range []string{
		"ftp://alice:s3cret-pw@cloud.example.com",
		"https://alice:s3cret-pw@cloud.example.com/%zz",
		"https://alice:s3cret-pw@cloud.example.com/?q=1",
		"alice:s3cret-pw@cloud.example.com",
	} {
		err := cloudauth.CheckURL(raw)
		if err == nil || strings.Contains(err.Error(), "s3cret-pw") {
			t.Errorf("CheckURL(%q): %v", raw, err)
		}
		_, err = cloudauth.ResolveSettings(cloudauth.Overrides{URL: raw}, nil, nil)
		if err == nil || strings.Contains(err.Error(), "s3cret-pw") {
			t.Errorf("ResolveSettings with --url %q: %v", raw, err)
		}
	}
}
