package main

import "github.com/perfls/perfls/internal/cli"

// The exit statuses by the names the tests use.
const (
	exitOK       = cli.ExitOK
	exitViolated = cli.ExitFailed
	exitUsage    = cli.ExitUsage
)
