//go:build !race || !unix

package testtools

// quickRaceExit does nothing: without the race detector there is no sleep
// at exit to spare (see program_race.go).
func quickRaceExit() {}
