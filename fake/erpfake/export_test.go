package erpfake

import "net/http"

// SetParsedHook makes s call hook with each API request once its body is
// parsed, before the request touches the fake's state: tests use it to
// hold a request at that point.
func SetParsedHook(s *Server, hook func(*http.Request)) { s.parsedHook.Store(&hook) }
