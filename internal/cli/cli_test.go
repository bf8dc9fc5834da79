package cli

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"testing/fstest"

	"github.com/spf13/cobra"
)

// tree is a root with one command "do" that has --count, --mode and an
// action returning err.
func tree(err error, got *[]string) *cobra.Command {
	root := &cobra.Command{Use: "tool"}
	var count int
	var mode string
	do := &cobra.Command{Use: "do", Args: UsageArgs(cobra.MaximumNArgs(1)), RunE: func(cmd *cobra.Command, args []string) error {
		*got = append(args, mode)
		return err
	}}
	do.Flags().IntVar(&count, "count", 1, "")
	Enum(do, &mode, "mode", "fast", "", "fast", "slow")
	root.AddCommand(do, &cobra.Command{Use: "group", Args: cobra.ArbitraryArgs, RunE: Group("a or b")})
	return root
}

func TestRun(t *testing.T) {
	cases := []struct {
		args   []string
		err    error
		code   int
		stderr string
	}{
		{[]string{"do", "x", "--mode", "slow"}, nil, 0, ""},
		{[]string{"do", "-count=2", "x"}, nil, 0, ""}, // one dash, as Go's flag package took it
		{[]string{"do", "--mode", "medium"}, nil, 2, "tool: invalid argument \"medium\" for \"--mode\" flag: want fast or slow\nRun 'tool do --help' for usage.\n"},
		{[]string{"do", "a", "b"}, nil, 2, "tool: accepts at most 1 arg(s), received 2\nRun 'tool do --help' for usage.\n"},
		{[]string{"do"}, ExitStatus(1), 1, ""},
		{[]string{"do"}, Usagef("bad %s", "input"), 2, "tool: bad input\nRun 'tool do --help' for usage.\n"},
		{[]string{"do"}, errors.New("broken"), 2, "tool: broken\n"},
		{[]string{"group", "c"}, nil, 2, "tool: unknown group subcommand \"c\" (want a or b)\nRun 'tool group --help' for usage.\n"},
	}
	for _, c := range cases {
		var stderr bytes.Buffer
		var got []string
		if code := Run(context.Background(), tree(c.err, &got), c.args, &stderr); code != c.code || stderr.String() != c.stderr {
			t.Errorf("%v: exit %d, stderr %q; want %d, %q", c.args, code, stderr.String(), c.code, c.stderr)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var stderr bytes.Buffer
	var got []string
	if code := Run(ctx, tree(context.Canceled, &got), []string{"do"}, &stderr); code != ExitInterrupt {
		t.Errorf("interrupted: exit %d", code)
	}
}

// Describe fills a command's summary and long help from help/NAME.txt and
// leaves commands with their own summary, or without a file, alone.
func TestDescribe(t *testing.T) {
	files := fstest.MapFS{
		"help/check.txt": {Data: []byte("Decide the formulas\n\nMeasures and decides.\nExit status: 0.\n")},
		"help/short.txt": {Data: []byte("Only a summary\n")},
		"help/own.txt":   {Data: []byte("From the file\n\nLong.\n")},
	}
	check, short, own, none := &cobra.Command{Use: "check"}, &cobra.Command{Use: "short"}, &cobra.Command{Use: "own", Short: "Its own"}, &cobra.Command{Use: "none"}
	Describe([]*cobra.Command{check, short, own, none}, files)
	if check.Short != "Decide the formulas" || check.Long != "Measures and decides.\nExit status: 0." {
		t.Errorf("check: %q / %q", check.Short, check.Long)
	}
	if short.Short != "Only a summary" || short.Long != "" || own.Short != "Its own" || own.Long != "" || none.Short != "" {
		t.Errorf("short %q/%q, own %q/%q, none %q", short.Short, short.Long, own.Short, own.Long, none.Short)
	}
}

// Root: the version as "name version", no command prints the usage on
// stderr with status 2, an unknown one is a usage error.
func TestRoot(t *testing.T) {
	var out, errOut bytes.Buffer
	run := func(args ...string) int { // a fresh root each time: cobra keeps flag values
		out.Reset()
		errOut.Reset()
		root := Root("tool", "Does things", "v1.2", nil, &out, &errOut)
		root.AddCommand(&cobra.Command{Use: "do", Run: func(*cobra.Command, []string) {}})
		return Run(context.Background(), root, args, &errOut)
	}
	for _, args := range [][]string{{"--version"}, {"version"}} {
		if code := run(args...); code != ExitOK || out.String() != "tool v1.2\n" {
			t.Errorf("%v: %d %q", args, code, out.String())
		}
	}
	if code := run(); code != ExitUsage || out.Len() != 0 || !bytes.Contains(errOut.Bytes(), []byte("Usage:")) {
		t.Errorf("no command: %d, stdout %q, stderr %q", code, out.String(), errOut.String())
	}
	if code := run("nosuch"); code != ExitUsage || !bytes.Contains(errOut.Bytes(), []byte(`unknown command "nosuch"`)) {
		t.Errorf("unknown command: %d %q", code, errOut.String())
	}
	// A mistyped command is answered with the one meant.
	if code := run("od"); code != ExitUsage || !bytes.Contains(errOut.Bytes(), []byte(`unknown command "od"; did you mean "do"?`)) {
		t.Errorf("mistyped command: %d %q", code, errOut.String())
	}
	// -v is never the version at the root: --verbose below it, --version here.
	if code := run("-v"); code != ExitUsage || out.Len() != 0 || !bytes.Contains(errOut.Bytes(), []byte("the version is --version")) {
		t.Errorf("-v: %d, stdout %q, stderr %q", code, out.String(), errOut.String())
	}
}
