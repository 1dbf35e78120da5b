package rest

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"os"
)

// TLSOptions configures certificate verification of the default transport.
type TLSOptions struct {
	// RootCAs replaces the system's certificate authorities when set (see
	// LoadCAFile, which adds a file's to the system's).
	RootCAs *x509.CertPool
	// InsecureSkipVerify turns certificate verification off. Only for tests
	// and lab setups; it is never on unless asked for.
	InsecureSkipVerify bool
}

func (o TLSOptions) empty() bool { return o.RootCAs == nil && !o.InsecureSkipVerify }

func (o TLSOptions) config() *tls.Config {
	return &tls.Config{MinVersion: tls.VersionTLS12, RootCAs: o.RootCAs, InsecureSkipVerify: o.InsecureSkipVerify} //nolint:gosec // insecure only when asked for
}

// LoadCAFile reads a PEM file of certificate authorities and returns the
// system pool with them added.
func LoadCAFile(path string) (*x509.CertPool, error) {
	pem, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading CA file: %w", err)
	}
	pool, err := x509.SystemCertPool()
	if err != nil || pool == nil {
		pool = x509.NewCertPool()
	}
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("CA file %s holds no PEM certificate", path)
	}
	return pool, nil
}
