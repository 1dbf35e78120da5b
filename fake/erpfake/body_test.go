package erpfake

import (
	"math/big"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"
)

func TestParseDecimal(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want, bad string }{
		{"12", "12", ""}, {"-0.5", "-1/2", ""}, {"+3", "3", ""}, {"1.5e3", "1500", ""}, {"1.5E-3", "3/2000", ""},
		{"0012.3400", "617/50", ""}, {".5", "1/2", ""}, {"5.", "5", ""}, {"0", "0", ""}, {"-0", "0", ""},
		{"9999999999999999.99999999", "999999999999999999999999/100000000", ""},
		{"0.00000001", "1/100000000", ""}, {"1e15", "1000000000000000", ""}, {"123456789e-8", "123456789/100000000", ""},
		{"0e999999999999999999999", "0", ""}, {"0.000e-99999999999", "0", ""},
		{"10000000000000000", "", "has more digits"}, {"0.000000001", "", "has more digits"}, {"1e16", "", "has more digits"},
		{"1e-9", "", "has more digits"}, {"1e999999999999999999999", "", "has more digits"}, {"1e-999999999999999999999", "", "has more digits"},
		{"", "", "must be a number"}, {".", "", "must be a number"}, {"-", "", "must be a number"}, {"1/3", "", "must be a number"},
		{"0x10", "", "must be a number"}, {"1e", "", "must be a number"}, {"1e+", "", "must be a number"}, {"--1", "", "must be a number"},
		{"+-1", "", "must be a number"}, {"1.2.3", "", "must be a number"}, {"1e5e5", "", "must be a number"}, {"Inf", "", "must be a number"},
		{"1,5", "", "must be a number"}, {" 1", "", "must be a number"},
	} {
		r, bad := parseDecimal(tc.in)
		switch {
		case tc.bad != "" && !strings.Contains(bad, tc.bad):
			t.Errorf("%q: %v %q, want %q", tc.in, r, bad, tc.bad)
		case tc.bad == "" && (bad != "" || r.RatString() != tc.want):
			t.Errorf("%q: %v %q, want %s", tc.in, r, bad, tc.want)
		}
	}
}

// FuzzDecimal checks parseDecimal against big.Rat: what it accepts has the
// value big.Rat reads and fits DECIMAL(24,8); what it refuses for its
// digits does not fit.
func FuzzDecimal(f *testing.F) {
	for _, s := range []string{"12.50", "-1e-8", "9999999999999999.99999999", "1e16", "0.000000001", "00.10e1", "1e99999"} {
		f.Add(s)
	}
	scale := big.NewRat(100_000_000, 1)
	f.Fuzz(func(t *testing.T, s string) {
		r, bad := parseDecimal(s)
		want, ok := new(big.Rat), false
		if len(s) < 200 && !strings.ContainsAny(s, "xXpP_/") {
			if e := strings.IndexAny(s, "eE"); e < 0 || len(s)-e < 6 {
				want, ok = want.SetString(s)
			}
		}
		switch {
		case bad == "":
			if !fitsDecimal(r) || !new(big.Rat).Mul(r, scale).IsInt() {
				t.Fatalf("%q read as %v, which does not fit DECIMAL(24,8)", s, r)
			}
			if ok && r.Cmp(want) != 0 {
				t.Fatalf("%q read as %v, not %v", s, r, want)
			}
		case strings.Contains(bad, "has more digits"):
			if ok && fitsDecimal(want) && new(big.Rat).Mul(want, scale).IsInt() {
				t.Fatalf("%q refused (%s), but %v fits", s, bad, want)
			}
		}
	})
}

// TestLoginsSweepExpiredSessions: past 10,000 open sessions, a login drops
// the expired ones, so that logging in again and again cannot grow the
// fake without bound.
func TestLoginsSweepExpiredSessions(t *testing.T) {
	t.Parallel()
	s, err := New(WithAdminPassword("pw"), WithSessionTimeout(time.Minute), WithBareLogin())
	if err != nil {
		t.Fatal(err)
	}
	login := func() {
		req := httptest.NewRequest("POST", "/index.php", strings.NewReader(url.Values{"username": {"admin"}, "password": {"pw"}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, req)
		if rec.Code != 302 {
			t.Fatalf("login: %d", rec.Code)
		}
	}
	open := func() int {
		s.mu.Lock()
		defer s.mu.Unlock()
		return len(s.st.sessions)
	}
	for range maxSessionsBeforePrune {
		login()
	}
	s.Clock().Advance(2 * time.Minute)
	login()
	if n := open(); n != 1 {
		t.Fatalf("%d sessions kept", n)
	}
}
