package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// Every run, cached ones too, repeated the same 3–5 notices. A
// notice is printed once per project and text; a run that has it again
// says how many it left out, a changed notice is printed, and -v prints
// them all.
func TestNoticesOncePerChange(t *testing.T) {
	cacheDir := t.TempDir()
	var errb bytes.Buffer
	a := &app{ctx: context.Background(), stderr: &errb}
	say := func(all bool, ns ...string) string {
		errb.Reset()
		a.notices(cacheDir, "/p", all, ns)
		return errb.String()
	}
	drift := "p.A#m[g](10): fork 3 ran 12 % slower than the others"
	capped := "warm-up hit --max-warmup in 1 of 5 forks of p.A#m[g](10)"
	if got, want := say(false, drift, capped), "perfls: "+drift+"\nperfls: "+capped+"\n"; got != want {
		t.Errorf("first run:\n%s\nwant\n%s", got, want)
	}
	if got, want := say(false, drift, capped), "perfls: 2 notice(s) as on an earlier run, not repeated (-v shows them)\n"; got != want {
		t.Errorf("second run:\n%s\nwant\n%s", got, want)
	}
	changed := strings.Replace(drift, "12 %", "14 %", 1)
	if got, want := say(false, changed, capped), "perfls: "+changed+"\nperfls: 1 notice(s) as on an earlier run, not repeated (-v shows them)\n"; got != want {
		t.Errorf("a changed notice:\n%s\nwant\n%s", got, want)
	}
	if got := say(true, changed, capped); !strings.Contains(got, changed) || !strings.Contains(got, capped) || strings.Contains(got, "not repeated") {
		t.Errorf("-v:\n%s", got)
	}
	// Another project's identical notice is its own.
	errb.Reset()
	a.notices(cacheDir, "/q", false, []string{capped})
	if errb.String() != "perfls: "+capped+"\n" {
		t.Errorf("another project:\n%s", errb.String())
	}
	// Without a cache directory nothing is remembered: always printed.
	errb.Reset()
	a.notices("", "/p", false, []string{capped})
	a.notices("", "/p", false, []string{capped})
	if strings.Count(errb.String(), capped) != 2 {
		t.Errorf("no cache directory:\n%s", errb.String())
	}
}
