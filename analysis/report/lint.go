package report

import (
	"fmt"
	"io"

	"github.com/perfls/perfls/analysis/workspace"
)

// WriteLint writes lint diagnostics one a line: file:line:col: severity: message.
func WriteLint(w io.Writer, diags []workspace.Diagnostic) {
	for _, d := range diags {
		fmt.Fprintln(w, d)
	}
}

// HasError tells whether any diagnostic is an error (lint's exit status 1).
func HasError(diags []workspace.Diagnostic) bool {
	for _, d := range diags {
		if d.Severity == workspace.Error {
			return true
		}
	}
	return false
}
