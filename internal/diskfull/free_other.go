//go:build !unix

package diskfull

import "syscall"

// quotaErr: no quota error to tell apart here.
var quotaErr error = syscall.ENOSPC

// Free is unknown here: -1.
func Free(dir string) int64 { return -1 }
