package cloudauth_test

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/apitwin/apitwin/cloudauth"
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
	if diff := cmp.Diff(cfg, got); diff != "" {
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
		"unknown field":   `{"profiles":{},"colour":"red"}`,
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
			want{Profile: "dev", URL: "https://dev.example.com", Tenant: cloudauth.DefaultTenant, VerifySSL: true}},
		{"flag beats CLI_PROFILE", cloudauth.Overrides{Profile: "prod"}, env("CLI_PROFILE", "dev"), cfg,
			want{Profile: "prod", URL: "https://prod.example.com", Tenant: "acme", Username: "alice", VerifySSL: true}},
		{"env beats profile", cloudauth.Overrides{}, env("CLI_URL", "https://env.example.com/", "CLI_TENANT", "t-env", "CLI_USERNAME", "bob"), cfg,
			want{Profile: "prod", URL: "https://env.example.com", Tenant: "t-env", Username: "bob", VerifySSL: true}},
		{"flag beats env", cloudauth.Overrides{URL: "https://flag.example.com", Tenant: "t-flag", Username: "carol", CACert: "/flag.pem"},
			env("CLI_URL", "https://env.example.com", "CLI_TENANT", "t-env", "CLI_USERNAME", "bob", "CLI_CA_CERT", "/env.pem"), cfg,
			want{Profile: "prod", URL: "https://flag.example.com", Tenant: "t-flag", Username: "carol", CACert: "/flag.pem", VerifySSL: true}},
		{"no profile, defaults", cloudauth.Overrides{}, env(), nil,
			want{Tenant: cloudauth.DefaultTenant, VerifySSL: true}},
		{"CLI_VERIFY_SSL=false", cloudauth.Overrides{}, env("CLI_VERIFY_SSL", "false"), nil,
			want{Tenant: cloudauth.DefaultTenant}},
		{"CLI_VERIFY_SSL=FALSE", cloudauth.Overrides{}, env("CLI_VERIFY_SSL", "FALSE"), nil,
			want{Tenant: cloudauth.DefaultTenant}},
		{"CLI_VERIFY_SSL=true", cloudauth.Overrides{}, env("CLI_VERIFY_SSL", "true"), nil,
			want{Tenant: cloudauth.DefaultTenant, VerifySSL: true}},
		{"--no-verify-ssl", cloudauth.Overrides{NoVerifySSL: true}, env("CLI_VERIFY_SSL", "true"), nil,
			want{Tenant: cloudauth.DefaultTenant}},
		{"CLI_TOKEN and CLI_CA_CERT", cloudauth.Overrides{}, env("CLI_TOKEN", "a.b.c", "CLI_CA_CERT", "/ca.pem"), nil,
			want{Tenant: cloudauth.DefaultTenant, Token: "a.b.c", CACert: "/ca.pem", VerifySSL: true}},
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
