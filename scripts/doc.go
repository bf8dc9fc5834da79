// Package scripts holds perfls's release script (release.sh, with the
// archive writer pack/) and the tests of the ways to install perfls that
// docs/install.md describes: the release archive on a PATH without Go,
// go install at a version, and the Go version the instructions name.
package scripts
