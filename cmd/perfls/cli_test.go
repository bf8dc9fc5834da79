package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/perfls/perfls/internal/fixture"
)

// The command line as users meet it: flags before or after arguments,
// directories defaulting to ".", help on stdout, usage errors in one line
// with a hint, the version with its commit, shell completion.
func TestCommandLine(t *testing.T) {
	fixture.Isolate(t)
	dir := t.TempDir()
	fixture.WriteFiles(t, dir, map[string]string{"p/A.java": `package p;
import dev.perfls.*;
public class A {
    @SPL("for n in {1, 2} SELF[gen](n) <= p.A#slow[gen](n) &")
    public static int fast(int n) { return n; }
    public static int slow(int n) { return n; }
    public static Iterable<Object[]> gen(int n) { return null; }
}
`})

	// Flags after the directory; lint defaults to ".".
	code, out, errs := runCLI(t, "lint", dir, "--format", "json", "--jdk-src", "none")
	var doc struct {
		Diagnostics []struct{ File, Message string }
	}
	if code != exitViolated || json.Unmarshal([]byte(out), &doc) != nil || len(doc.Diagnostics) == 0 {
		t.Errorf("lint DIR --format json: exit %d\n%s\n%s", code, out, errs)
	}
	t.Chdir(dir)
	if code, out, _ := runCLI(t, "lint", "--jdk-src=none"); code != exitViolated || !strings.Contains(out, "p/A.java:4:") {
		t.Errorf("lint without a path: exit %d\n%s", code, out)
	}
	// A long flag with one dash, as Go's flag package took it, and flags
	// after check's directory: both reach the command.
	for _, args := range [][]string{{"check", dir, "--forks", "0"}, {"check", "-forks", "0"}, {"check", "-forks=0", dir}} {
		if code, _, errs := runCLI(t, args...); code != exitUsage || !strings.Contains(errs, "forks must be ≥ 1") {
			t.Errorf("%v: exit %d, %s", args, code, errs)
		}
	}

	// Help: on stdout, exit 0, the command's own.
	for _, args := range [][]string{{"check", "-h"}, {"check", "--help"}, {"help", "check"}} {
		code, out, errs := runCLI(t, args...)
		if code != exitOK || !strings.Contains(out, "perfls check [flags] [DIR | FILE]") || !strings.Contains(out, "--junit") ||
			!strings.Contains(out, "Exit status: 0 all hold") || errs != "" { // help/check.txt
			t.Errorf("%v: exit %d\nstdout:\n%s\nstderr:\n%s", args, code, out, errs)
		}
	}
	// A usage error: one line and a hint, on stderr.
	for _, c := range []struct {
		args []string
		line string
	}{
		{[]string{"check", "--frobnicate"}, "perfls: unknown flag: --frobnicate\nRun 'perfls check --help' for usage.\n"},
		{[]string{"frobnicate"}, "perfls: unknown command \"frobnicate\"\nRun 'perfls --help' for usage.\n"},
		{[]string{"measure", "--method", "p.A"}, "perfls: --method: \"p.A\" is not pkg.Class#method\nRun 'perfls measure --help' for usage.\n"},
		{[]string{"cache", "frob"}, "perfls: unknown cache subcommand \"frob\" (want ls, show, gc, verify or clear)\nRun 'perfls cache --help' for usage.\n"},
	} {
		code, out, errs := runCLI(t, c.args...)
		if code != exitUsage || errs != c.line || out != "" {
			t.Errorf("%v: exit %d, stderr %q, want %q", c.args, code, errs, c.line)
		}
	}

	for _, args := range [][]string{{"--version"}, {"version"}} {
		if code, out, _ := runCLI(t, args...); code != exitOK || !strings.HasPrefix(out, "perfls ") || len(strings.Fields(out)) < 3 {
			t.Errorf("%v: exit %d, %q", args, code, out)
		}
	}

	// Completion scripts, and the names they complete from the index.
	for shell, want := range map[string]string{"bash": "__start_perfls", "zsh": "#compdef perfls", "fish": "complete -c perfls"} {
		if code, out, _ := runCLI(t, "completion", shell); code != exitOK || !strings.Contains(out, want) {
			t.Errorf("completion %s: exit %d, lacks %q", shell, code, want)
		}
	}
	for flag, want := range map[string]string{"--method": "p.A#fast\np.A#slow\n", "--workload": "p.A#gen\n"} {
		code, out, _ := runCLI(t, "__complete", "measure", "--project", dir, flag, "p.A#")
		if got, _, _ := strings.Cut(out, ":"); code != exitOK || got != want {
			t.Errorf("completing %s: exit %d, %q, want %q", flag, code, out, want)
		}
	}
}

// Every command has its summary (help/NAME.txt): perfls --help lists none
// without one.
func TestEveryCommandIsDescribed(t *testing.T) {
	code, out, _ := runCLI(t, "--help")
	_, list, ok := strings.Cut(out, "Available Commands:\n")
	list, _, _ = strings.Cut(list, "\n\n")
	if code != exitOK || !ok {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	for _, line := range strings.Split(list, "\n") {
		if len(strings.Fields(line)) < 2 {
			t.Errorf("no summary: %q", line)
		}
	}
	if !strings.Contains(list, "ensemble ") || !strings.Contains(list, "bisect ") {
		t.Errorf("commands missing:\n%s", list)
	}
}
