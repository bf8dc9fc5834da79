//go:build !unix

package cache

// lockPath does not lock where flock is missing: setting a corrupt file
// aside then relies on checking the file again just before.
func lockPath(string) (func(), error) { return func() {}, nil }
