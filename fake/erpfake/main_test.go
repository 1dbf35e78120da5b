package erpfake_test

import (
	"testing"

	"github.com/apitwin/apitwin/internal/testtools"
)

// TestMain runs the tests with the fakes on loopback, or in memory under
// -fakes.inmemory (see testtools.FakesMain).
func TestMain(m *testing.M) { testtools.FakesMain(m) }
