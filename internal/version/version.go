// Package version holds the SDK's release version, sent in every User-Agent.
package version

// Version is the SDK's semantic version. Bump it with each release.
const Version = "0.1.0"

// UserAgent is the product token every apitwin client sends.
const UserAgent = "apitwin/" + Version
