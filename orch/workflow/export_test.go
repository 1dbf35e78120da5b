package workflow

// DeadlockWhen returns Options whose deadlock watchdog fires when fire
// is closed instead of after a time, so a test can declare the coroutine
// being waited for stuck at the moment it chooses.
func DeadlockWhen(fire <-chan struct{}) Options { return Options{fire: fire} }
