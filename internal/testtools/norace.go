//go:build !race

package testtools

// RaceEnabled reports whether the binary was built with the race
// detector, whose shadow memory makes a process's resident size no measure
// of what the code keeps.
const RaceEnabled = false
