package report

import (
	"fmt"
	"io"
	"strings"
	"sync"
)

// CommandLine renders argv for display (the HTML report shows the command),
// quoting arguments as a POSIX shell would need them.
func CommandLine(argv []string) string {
	out := make([]string, len(argv))
	for i, a := range argv {
		if a != "" && !strings.ContainsAny(a, " \t\n'\"\\$`*?[]{}()<>|&;#~!") {
			out[i] = a
			continue
		}
		out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(out, " ")
}

// Progress shows measuring progress on w: every message on its own line
// when verbose; else, on a terminal, one line rewritten in place with the
// number of forks done and the latest message, so a long first check is not
// silent and logs stay clean; else nothing. The returned report takes a
// message and whether it says a fork ended; done clears the line.
func Progress(w io.Writer, verbose, terminal bool) (report func(message string, forkDone bool), done func()) {
	switch {
	case verbose:
		return func(m string, _ bool) { fmt.Fprintf(w, "  %s\n", m) }, func() {}
	case !terminal:
		return nil, func() {}
	}
	var mu sync.Mutex
	forks := 0
	report = func(m string, forkDone bool) {
		mu.Lock()
		defer mu.Unlock()
		if forkDone {
			forks++
		}
		line := fmt.Sprintf("perfls: measuring, %d forks done; %s", forks, m)
		if len(line) > 110 {
			line = line[:107] + "..."
		}
		fmt.Fprintf(w, "\r\033[K%s", line)
	}
	return report, func() { fmt.Fprint(w, "\r\033[K") }
}
