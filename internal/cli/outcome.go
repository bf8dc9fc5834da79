package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/perfls/perfls/measure/revision"
)

// Worse is the exit status to end with when a command ran an action
// several times: an error (2) over a failure (1) over "not applicable" (3)
// over success.
func Worse(a, b error) error {
	rank := func(err error) int {
		var s ExitStatus
		switch {
		case err == nil:
			return 0
		case !errors.As(err, &s) || s == ExitUsage:
			return 3
		case s == ExitFailed:
			return 2
		}
		return 1
	}
	if rank(b) > rank(a) {
		return b
	}
	return a
}

// Numbered is path for the n-th of several outputs: path itself for the
// first, "prof-2.pb.gz" for the second of "prof.pb.gz".
func Numbered(path string, n int) string {
	if n <= 1 || path == "" {
		return path
	}
	base := filepath.Base(path)
	stem, ext, _ := strings.Cut(base, ".")
	if ext != "" {
		ext = "." + ext
	}
	return filepath.Join(filepath.Dir(path), fmt.Sprintf("%s-%d%s", stem, n, ext))
}

// FetchEnv allows --fetch for every command that reads history (diff,
// bisect, explain): a CI setting.
const FetchEnv = "PERFLS_FETCH"

// FetchFlag binds --fetch, whose default is whether $PERFLS_FETCH is true
// (1, true, yes).
func FetchFlag(fs *pflag.FlagSet, fetch *bool) {
	v, _ := strconv.ParseBool(os.Getenv(FetchEnv))
	fs.BoolVar(fetch, "fetch", v || strings.EqualFold(os.Getenv(FetchEnv), "yes"),
		"fetch what a shallow or single-branch clone lacks (the base branch, history below its boundary) from its remote, into remote-tracking refs or FETCH_HEAD only (default: $"+FetchEnv+")")
}

// FetchHint adds to an error about history a clone lacks that perfls could
// fetch it itself, when it was not allowed to.
func FetchHint(err error, command string, fetched bool) error {
	var he *revision.HistoryError
	if fetched || !errors.As(err, &he) || !he.Fetchable {
		return err
	}
	return fmt.Errorf("%w\n   or: perfls %s --fetch   (or %s=1 in CI): fetches only what is missing, into remote-tracking refs or FETCH_HEAD", err, command, FetchEnv)
}
