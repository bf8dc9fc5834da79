package report

import (
	"strings"
	"testing"
	"time"
)

// On a terminal the line shows the forks done out of those planned, with
// plans that grow (a check adding forks); in a log, a heartbeat line at most
// every HeartbeatEvery, and nothing else.
func TestProgressCountsPlannedForks(t *testing.T) {
	var term strings.Builder
	line, done := progress(&term, false, true, time.Now)
	line("", false, 10)
	line("fork 1/5 of a: 12 ns/op", true, 0)
	line("", false, 5)
	line("fork 2/5 of a: 12 ns/op", true, 0)
	done()
	if got := term.String(); !strings.Contains(got, "[1/10 forks]") || !strings.Contains(got, "[2/15 forks]; fork 2/5") {
		t.Errorf("terminal output %q", got)
	}

	var log strings.Builder
	clock := time.Unix(0, 0)
	line, _ = progress(&log, false, false, func() time.Time { return clock })
	line("", false, 40)
	line("fork 1", true, 0)
	clock = clock.Add(HeartbeatEvery)
	line("fork 2", true, 0)
	line("fork 3", true, 0)
	if got := log.String(); got != "perfls: measuring, 2/40 forks done\n" {
		t.Errorf("log output %q, want one heartbeat line", got)
	}
}
