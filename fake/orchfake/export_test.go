package orchfake

// SetStartHook makes s call hook inside every workflow start, with the
// state lock held: tests use it to make a handler panic there.
func SetStartHook(s *Server, hook func()) { s.startHook.Store(&hook) }
