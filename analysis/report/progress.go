package report

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
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
// forks done out of those planned and the latest message, so a long first
// check is not silent and logs stay clean; else (a CI log) a heartbeat line
// with the forks done at most every HeartbeatEvery. The returned report
// takes a message, whether it says a fork ended, and forks newly planned
// (a check that adds forks plans again); done clears the line.
func Progress(w io.Writer, verbose, terminal bool) (report func(message string, forkDone bool, planned int), done func()) {
	return progress(w, verbose, terminal, time.Now)
}

// HeartbeatEvery is how often a non-terminal log gets a progress line.
const HeartbeatEvery = 30 * time.Second

func progress(w io.Writer, verbose, terminal bool, now func() time.Time) (func(string, bool, int), func()) {
	if verbose {
		return func(m string, _ bool, _ int) {
			if m != "" {
				fmt.Fprintf(w, "  %s\n", m)
			}
		}, func() {}
	}
	var mu sync.Mutex
	forks, planned := 0, 0
	last, shown := now(), ""
	count := func() string {
		if planned > 0 {
			return fmt.Sprintf("%d/%d forks", forks, max(planned, forks))
		}
		return fmt.Sprintf("%d forks", forks)
	}
	report := func(m string, forkDone bool, more int) {
		mu.Lock()
		defer mu.Unlock()
		planned += more
		if forkDone {
			forks++
		}
		if !terminal {
			if forkDone && now().Sub(last) >= HeartbeatEvery {
				last = now()
				fmt.Fprintf(w, "perfls: measuring, %s done\n", count())
			}
			return
		}
		if m != "" {
			shown = m
		}
		line := fmt.Sprintf("perfls: measuring [%s]; %s", count(), shown)
		if len(line) > 110 {
			line = line[:107] + "..."
		}
		fmt.Fprintf(w, "\r\033[K%s", line)
	}
	if !terminal {
		return report, func() {}
	}
	return report, func() { fmt.Fprint(w, "\r\033[K") }
}
