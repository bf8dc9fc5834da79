package cli

import (
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// ensembleRequest parses perfls ensemble's flags and makes the request.
func ensembleRequest(t *testing.T, args ...string) (string, error) {
	t.Helper()
	fs := pflag.NewFlagSet("ensemble", pflag.ContinueOnError)
	f := EnsembleFlags(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	req, err := f.Request()
	switch {
	case err != nil:
		return "", err
	case req.CSV != nil:
		return "csv " + req.CSV.History + " " + req.CSV.New + " " + string(req.Config.Method), nil
	}
	return "store " + req.Method + " " + req.Workload + " " + string(req.Config.Method), nil
}

// The flags decide the form: --history/--new the CSV runs (--method
// without "#" is then the vote), --method pkg.Class#m the stored results;
// a flag of the other form is refused, saying which.
func TestEnsembleRequest(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string // the form, or a part of the error
	}{
		{[]string{"--history", "h", "--new", "n"}, "csv h n stacking"},
		{[]string{"--history", "h", "--new", "n", "--method", "bagging"}, "csv h n bagging"},
		{[]string{"--history", "h", "--new", "n", "--vote", "single"}, "csv h n single"},
		{[]string{"--method", "p.A#m", "--workload", "p.A#gen"}, "store p.A#m p.A#gen stacking"},
		{[]string{"--history", "h", "--new", "n", "--method", "vote"}, `--method "vote": the store form wants pkg.Class#m`},
		{[]string{"--method", "p.A#m", "--history", "h"}, "give one form"},
		{[]string{"--history", "h", "--new", "n", "--id", "3"}, "give one form"},
		{nil, "want a history directory"},
		{[]string{"--history", "h", "--new", "n", "--passed-only"}, "for stored results"},
		{[]string{"--history", "h", "--new", "n", "--review", "passed"}, "for stored results"},
		{[]string{"--method", "p.A#m", "--interval", "2"}, "group CSV rows"},
	} {
		got, err := ensembleRequest(t, tc.args...)
		if err != nil {
			got = err.Error()
		}
		if !strings.Contains(got, tc.want) {
			t.Errorf("%q: %q, want %q", tc.args, got, tc.want)
		}
	}
}
