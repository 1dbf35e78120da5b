package erp_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/apitwin/apitwin/erp"
	"github.com/apitwin/apitwin/fake/erpfake"
	"github.com/apitwin/apitwin/internal/leaktest"
)

// env builds a getenv from pairs, over a base.
func env(base map[string]string, pairs ...string) func(string) string {
	m := map[string]string{}
	for k, v := range base {
		m[k] = v
	}
	for i := 0; i+1 < len(pairs); i += 2 {
		m[pairs[i]] = pairs[i+1]
	}
	return func(k string) string { return m[k] }
}

var (
	internalEnv = map[string]string{"ERP_ADMIN_PASSWORD": "admin-pw", "DB_PASSWORD": "db-pw", "DB_ROOT_PASSWORD": "root-pw"}
	externalEnv = map[string]string{"ERP_ADMIN_PASSWORD": "admin-pw", "DB_PASSWORD": "db-pw",
		"DB_HOST": "db.internal", "DB_USER": "erp", "DB_NAME": "erp"}
)

func TestLoadSettingsValid(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		profile erp.Profile
		getenv  func(string) string
		want    erp.Settings
	}{
		{"internal-db defaults", erp.ProfileInternalDB, env(internalEnv), erp.Settings{
			Profile: erp.ProfileInternalDB, AdminPassword: "admin-pw", DBPassword: "db-pw", DBRootPassword: "root-pw",
			ERPPort: 8080, DBAdminPort: 8081, DBPort: 3306,
		}},
		{"internal-db-tools with ports and PHP", erp.ProfileInternalDBTools, env(internalEnv, "ERP_PORT", "9000", "DBADMIN_PORT", "9001",
			"DB_EXTERNAL_PORT", "13306", "ERP_URL_ROOT", "https://erp.example.com/", "PHP_MEMORY_LIMIT", "512M",
			"PHP_MAX_EXECUTION_TIME", "300", "PHP_UPLOAD_MAX_FILESIZE", "64M", "PHP_POST_MAX_SIZE", "64m", "PHP_MAX_FILE_UPLOADS", "20"),
			erp.Settings{
				Profile: erp.ProfileInternalDBTools, AdminPassword: "admin-pw", DBPassword: "db-pw", DBRootPassword: "root-pw",
				ERPPort: 9000, DBAdminPort: 9001, DBExternalPort: 13306, URLRoot: "https://erp.example.com", DBPort: 3306,
				PHP: erp.PHPSettings{MemoryLimit: 512 << 20, MaxExecutionTime: 300, UploadMaxFilesize: 64 << 20, PostMaxSize: 64 << 20, MaxFileUploads: 20},
			}},
		{"external-db", erp.ProfileExternalDB, env(externalEnv, "DB_PORT", "3307", "PHP_MEMORY_LIMIT", "-1", "PHP_MAX_EXECUTION_TIME", "0",
			"PHP_POST_MAX_SIZE", "0"), erp.Settings{
			Profile: erp.ProfileExternalDB, AdminPassword: "admin-pw", DBPassword: "db-pw",
			ERPPort: 8080, DBAdminPort: 8081, DBHost: "db.internal", DBPort: 3307, DBUser: "erp", DBName: "erp",
			PHP: erp.PHPSettings{MemoryLimit: erp.Unlimited, MaxExecutionTime: -1, PostMaxSize: erp.Unlimited},
		}},
		// post_max_size = 0 is PHP's "no limit", in any spelling of zero.
		{"PHP_POST_MAX_SIZE zero spelt otherwise", erp.ProfileInternalDB, env(internalEnv, "PHP_POST_MAX_SIZE", " 0K "), erp.Settings{
			Profile: erp.ProfileInternalDB, AdminPassword: "admin-pw", DBPassword: "db-pw", DBRootPassword: "root-pw",
			ERPPort: 8080, DBAdminPort: 8081, DBPort: 3306, PHP: erp.PHPSettings{PostMaxSize: erp.Unlimited},
		}},
		// The database administration tool only publishes its port with
		// the tools profile, so it may share ERP_PORT's number elsewhere.
		{"internal-db ignores DBADMIN_PORT collisions", erp.ProfileInternalDB, env(internalEnv, "DBADMIN_PORT", "8080"), erp.Settings{
			Profile: erp.ProfileInternalDB, AdminPassword: "admin-pw", DBPassword: "db-pw", DBRootPassword: "root-pw",
			ERPPort: 8080, DBAdminPort: 8080, DBPort: 3306,
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := erp.LoadSettings(tc.profile, tc.getenv)
			if err != nil {
				t.Fatal(err)
			}
			if d := diff(&tc.want, got); d != "" {
				t.Fatalf("(-want +got):\n%s", d)
			}
		})
	}
}

func TestLoadSettingsInvalid(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		profile erp.Profile
		getenv  func(string) string
		want    []string // the problems, in order
	}{
		{"nothing set, internal", erp.ProfileInternalDB, env(nil), []string{
			"ERP_ADMIN_PASSWORD is required", "DB_PASSWORD is required", "DB_ROOT_PASSWORD is required with the internal database"}},
		{"nothing set, tools", erp.ProfileInternalDBTools, env(nil), []string{
			"ERP_ADMIN_PASSWORD is required", "DB_PASSWORD is required", "DB_ROOT_PASSWORD is required with the internal database"}},
		{"nothing set, external", erp.ProfileExternalDB, env(nil), []string{
			"ERP_ADMIN_PASSWORD is required", "DB_PASSWORD is required",
			"DB_HOST is required with an external database", "DB_USER is required with an external database", "DB_NAME is required with an external database"}},
		{"external needs no root password but its host", erp.ProfileExternalDB, env(externalEnv, "DB_HOST", ""), []string{
			"DB_HOST is required with an external database"}},
		{"malformed ports and URL", erp.ProfileInternalDBTools, env(internalEnv, "ERP_PORT", "80a", "DBADMIN_PORT", "70000",
			"DB_EXTERNAL_PORT", "0", "ERP_URL_ROOT", "erp.example.com", "DB_PORT", "-1"), []string{
			`ERP_PORT "80a" is not a port number (1-65535)`, `DBADMIN_PORT "70000" is not a port number (1-65535)`,
			`DB_EXTERNAL_PORT "0" is not a port number (1-65535)`, `ERP_URL_ROOT "erp.example.com" is not an absolute http or https URL`,
			`DB_PORT "-1" is not a port number (1-65535)`}},
		{"published ports collide", erp.ProfileInternalDBTools, env(internalEnv, "ERP_PORT", "8081", "DB_EXTERNAL_PORT", "8081"), []string{
			"DBADMIN_PORT (8081) is the same host port as ERP_PORT", "DB_EXTERNAL_PORT (8081) is the same host port as ERP_PORT"}},
		{"PHP settings", erp.ProfileInternalDB, env(internalEnv, "PHP_MEMORY_LIMIT", "lots", "PHP_MAX_EXECUTION_TIME", "30s",
			"PHP_UPLOAD_MAX_FILESIZE", "-1", "PHP_POST_MAX_SIZE", "8MB", "PHP_MAX_FILE_UPLOADS", "0"), []string{
			`PHP_MEMORY_LIMIT "lots" is not a size (digits with an optional K, M or G, or -1)`,
			`PHP_MAX_EXECUTION_TIME "30s" is not a whole number of seconds (0 for no limit)`,
			`PHP_UPLOAD_MAX_FILESIZE "-1": -1 (no limit) is only for PHP_MEMORY_LIMIT`,
			`PHP_POST_MAX_SIZE "8MB" is not a size (digits with an optional K, M or G, or -1)`,
			`PHP_MAX_FILE_UPLOADS "0" is not a whole number of at least 1`}},
		{"post smaller than upload, memory smaller than post", erp.ProfileExternalDB, env(externalEnv, "PHP_UPLOAD_MAX_FILESIZE", "20M",
			"PHP_POST_MAX_SIZE", "8M", "PHP_MEMORY_LIMIT", "4M"), []string{
			"PHP_POST_MAX_SIZE (8M) is smaller than PHP_UPLOAD_MAX_FILESIZE (20M): uploads that large would fail",
			"PHP_MEMORY_LIMIT (4M) is smaller than PHP_POST_MAX_SIZE (8M)"}},
		{"unknown profile", "cloud", env(externalEnv), []string{`profile "cloud" is not one of internal-db, internal-db-tools, external-db`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := erp.LoadSettings(tc.profile, tc.getenv)
			var se *erp.SettingsError
			if !errors.As(err, &se) {
				t.Fatalf("err = %v", err)
			}
			var got []string
			for _, p := range se.Problems {
				got = append(got, p.Name+" "+p.Problem)
			}
			if d := diff(tc.want, got); d != "" {
				t.Fatalf("problems (-want +got):\n%s", d)
			}
			if msg := err.Error(); !strings.HasPrefix(msg, "erp: deployment settings for profile "+string(tc.profile)+": ") ||
				strings.Count(msg, ";") != len(tc.want)-1 {
				t.Fatalf("one error naming all: %s", msg)
			}
			for _, secret := range []string{"admin-pw", "db-pw", "root-pw"} {
				if strings.Contains(err.Error(), secret) {
					t.Fatalf("secret in %s", err)
				}
			}
		})
	}
	if _, err := erp.LoadSettings(erp.ProfileInternalDB, nil); err == nil {
		t.Fatal("nil getenv accepted")
	}
}

func TestSettingsFormattingAndClient(t *testing.T) {
	t.Parallel()
	s, err := erp.LoadSettings(erp.ProfileInternalDBTools, env(internalEnv))
	if err != nil {
		t.Fatal(err)
	}
	leaktest.NoSecretIn(t, "the settings", s, "admin-pw", "db-pw", "root-pw")
	if s.BaseURL() != "http://localhost:8080" || s.DBAdminURL() != "http://localhost:8081" {
		t.Fatalf("URLs %s %s", s.BaseURL(), s.DBAdminURL())
	}
	for _, size := range []struct {
		s    erp.Size
		want string
	}{{512 << 20, "512M"}, {2 << 30, "2G"}, {1536, "1536"}, {3 << 10, "3K"}, {erp.Unlimited, "-1"}} {
		if size.s.String() != size.want {
			t.Errorf("%d: %s", size.s, size.s)
		}
	}
	// A client from the settings logs in as admin with ERP_ADMIN_PASSWORD
	// at ERP_URL_ROOT.
	srv := erpfake.Start(t, erpfake.WithAdminPassword("admin-pw"))
	s, err = erp.LoadSettings(erp.ProfileExternalDB, env(externalEnv, "ERP_URL_ROOT", srv.URL()))
	if err != nil {
		t.Fatal(err)
	}
	c, err := erp.NewFromSettings(s, erp.WithClock(srv.Clock()))
	if err != nil {
		t.Fatal(err)
	}
	u, err := c.GetUser(ctx, 1)
	if err != nil || u.Login != "admin" || len(srv.RequestsTo("POST /index.php")) != 1 {
		t.Fatalf("%+v %v", u, err)
	}
	if _, err := erp.NewFromSettings(&erp.Settings{}); err == nil {
		t.Fatal("settings without admin password accepted")
	}
	if len(erp.Profiles()) != 3 {
		t.Fatal("profiles")
	}
}
