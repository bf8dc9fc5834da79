package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/perfls/perfls/engine"
	"github.com/perfls/perfls/internal/profilecases"
	"github.com/perfls/perfls/measure"
)

// The profile part (issue #20): perfls profile as a user runs it (the
// built binary, out of process, --fresh) on examples/profiling's programs,
// each with one seeded cause marked "// cause: <kind>" on its line, and on
// the clean methods of examples/quickstart and examples/oracle; the
// overhead of a profiled fork against a timing fork with the same options;
// and the time to a profile of a method of about 1 ms.
//
//	go run ./bench profile [-profile-rounds 3]
//	go run ./bench profile-time         (the time to a profile only)
//	go run ./bench profile-validation   (the validation only)

// profileFinding is what the validation reads of perfls profile's JSON.
type profileFinding struct {
	Kind, File string
	Line       int
}

// profileBench runs the parts named: "time", "validation", "overhead"
// (all three when none is named).
func profileBench(ctx context.Context, rounds int, only string) error {
	tmp, bin, err := tempPerfls(ctx, "perfls-bench-profile-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	cacheDir := filepath.Join(tmp, "cache")
	for _, part := range []struct {
		name string
		run  func() error
	}{
		{"time", func() error { return timeToProfile(ctx, bin, cacheDir) }},
		{"validation", func() error { return profileValidation(ctx, bin, cacheDir, rounds) }},
		{"overhead", func() error { return profileOverhead(ctx, cacheDir) }},
	} {
		if only != "" && only != part.name {
			continue
		}
		if err := part.run(); err != nil {
			return err
		}
	}
	return nil
}

// perflsProfile runs perfls profile --format json on c and returns its
// findings and the command's wall time.
func perflsProfile(ctx context.Context, bin, cacheDir string, c profilecases.Case, extra ...string) ([]profileFinding, time.Duration, error) {
	args := append([]string{"profile", "--project", filepath.Join("examples", c.Project), "--method", c.Method,
		"--workload", c.Gen, "--args", fmt.Sprint(c.Arg), "--format", "json"}, extra...)
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(os.Environ(), "PERFLS_CACHE_DIR="+cacheDir)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	took := time.Since(start)
	if err != nil {
		return nil, took, fmt.Errorf("perfls %s: %v\n%s", strings.Join(args, " "), err, lastLinesOf(stderr.String(), 10))
	}
	var doc struct{ Findings []profileFinding }
	if err := json.Unmarshal(stdout.Bytes(), &doc); err != nil {
		return nil, took, fmt.Errorf("perfls profile %s: %v", c.Method, err)
	}
	return doc.Findings, took, nil
}

// profileValidation profiles every case rounds times and prints, per
// program, whether the seeded cause was found at its line, and the false
// findings (any other finding) on the seeded and the clean methods.
func profileValidation(ctx context.Context, bin, cacheDir string, rounds int) error {
	fmt.Printf("== profile validation: perfls profile --fresh on %d methods, %d round(s)\n", len(profilecases.All), rounds)
	fmt.Printf("%-36s %-44s %-9s %s\n", "method", "expected", "found", "other findings")
	found, falses, cleanRuns, cleanFalse := 0, 0, 0, 0
	var times []float64
	for _, c := range profilecases.All {
		expected, file, line := "none (clean)", "", 0
		if c.Cause != "" {
			var err error
			if file, line, err = c.CauseLine("examples"); err != nil {
				return err
			}
			expected = fmt.Sprintf("%s at %s:%d", c.Cause, filepath.Base(file), line)
		}
		hits := 0
		var other []string
		for r := 0; r < rounds; r++ {
			fs, took, err := perflsProfile(ctx, bin, cacheDir, c, "--fresh")
			if err != nil {
				return err
			}
			times = append(times, took.Seconds())
			hit := false
			for _, f := range fs {
				if c.Cause != "" && f.Kind == c.Cause && f.File == file && f.Line == line {
					hit = true
					continue
				}
				other = append(other, fmt.Sprintf("%s at %s:%d", f.Kind, filepath.Base(f.File), f.Line))
				falses++
				if c.Cause == "" {
					cleanFalse++
				}
			}
			if hit {
				hits++
			}
			if c.Cause == "" {
				cleanRuns++
			}
		}
		foundCol := "—"
		if c.Cause != "" {
			foundCol = fmt.Sprintf("%d/%d", hits, rounds)
			found += hits
		}
		if len(other) == 0 {
			other = []string{"none"}
		}
		fmt.Printf("%-36s %-44s %-9s %s\n", c.Method, expected, foundCol, strings.Join(other, "; "))
	}
	sort.Float64s(times)
	fmt.Printf("seeded causes found at the right line: %d of %d runs; false findings: %d (of them on clean methods: %d in %d runs)\n",
		found, 5*rounds, falses, cleanFalse, cleanRuns)
	fmt.Printf("perfls profile --fresh wall time per method: median %.2f s, max %.2f s\n", times[len(times)/2], times[len(times)-1])
	return nil
}

// timeToProfile times perfls profile on a method of about 1 ms
// (Duplicates#countRepeats on 3,600 values), out of process, each figure
// with the load averages before and after: the first run in an empty
// cache (perfls's library and the project compiled), then --fresh runs
// in-process, and through a running daemon: the first quick profile
// (--phase quick: the daemon starts its worker JVM), quick profiles in the
// warm worker, and profiled forks.
func timeToProfile(ctx context.Context, bin, cacheDir string) error {
	c := profilecases.OneMs
	fmt.Printf("== time to a profile of %s(%d) (about 1 ms per call)\n", c.Method, c.Arg)
	load := loadAverages()
	_, first, err := perflsProfile(ctx, bin, cacheDir, c)
	if err != nil {
		return err
	}
	fmt.Printf("first profile, empty cache (compiles perfls's library and the project): %.2f s (load %s → %s)\n", first.Seconds(), load, loadAverages())
	median := func(what string, n int, extra ...string) error {
		var ts []float64
		load := loadAverages()
		for i := 0; i < n; i++ {
			_, t, err := perflsProfile(ctx, bin, cacheDir, c, append([]string{"--fresh"}, extra...)...)
			if err != nil {
				return err
			}
			ts = append(ts, t.Seconds())
		}
		fmt.Printf("%s: %s (load %s → %s)\n", what, fmtRuns(ts), load, loadAverages())
		return nil
	}
	if err := median("forks, --fresh, no daemon", 3); err != nil {
		return err
	}
	daemon := func(verb string) error {
		cmd := exec.CommandContext(ctx, bin, "daemon", verb)
		cmd.Env = append(os.Environ(), "PERFLS_CACHE_DIR="+cacheDir)
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("perfls daemon %s: %v\n%s", verb, err, out)
		}
		return nil
	}
	if err := daemon("start"); err != nil {
		return err
	}
	err = median("--phase quick through a new daemon (its worker JVM starts)", 1, "--phase", "quick")
	if err == nil {
		err = median("--phase quick in the daemon's warm worker", 3, "--phase", "quick")
	}
	if err == nil {
		err = median("forks, --fresh, through the daemon", 3)
	}
	if serr := daemon("stop"); err == nil {
		err = serr
	}
	return err
}

// fmtRuns formats run times: the median of three or more, and each run.
func fmtRuns(ts []float64) string {
	s := make([]string, len(ts))
	for i, t := range ts {
		s[i] = fmt.Sprintf("%.2f", t)
	}
	if len(ts) < 3 {
		return strings.Join(s, ", ") + " s"
	}
	sorted := append([]float64(nil), ts...)
	sort.Float64s(sorted)
	return fmt.Sprintf("median %.2f s of %d (%s)", sorted[len(sorted)/2], len(ts), strings.Join(s, ", "))
}

// loadAverages are the machine's 1- and 5-minute load averages, "?" when
// unknown (no /proc).
func loadAverages() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) >= 2 {
		return f[0] + "/" + f[1]
	}
	return "?"
}

// profileOverhead measures each overhead case in forks that alternate
// between a timing fork and a profiled fork with the same options (perfls
// profile's: 20 samples of ≥ 50 ms, serial collector, fixed 512 MB heap), and prints the median over forks of the fork mean time per
// operation both ways.
func profileOverhead(ctx context.Context, cacheDir string) error {
	const forks = 5
	opt := engine.ProfileOptions(engine.ProfileDefaults())
	prof, err := measure.ProfileJVMArgs(ctx, "", cacheDir)
	if err != nil {
		return err
	}
	fmt.Printf("== profiled fork against timing fork, same options, %d alternating forks each (median of fork means)\n", forks)
	fmt.Printf("%-36s %14s %14s %9s\n", "method", "timing fork", "profiled fork", "overhead")
	for _, c := range profilecases.Overhead {
		e, err := setup(ctx, filepath.Join("examples", c.Project))
		if err != nil {
			return err
		}
		req, err := e.request(ctx, c.Method, c.Gen, int64(c.Arg))
		if err != nil {
			return err
		}
		var plain, profiled []float64
		for f := 0; f < forks; f++ {
			for _, p := range []bool{false, true} {
				o := opt
				if p {
					o.Profile, o.JVMArgs = true, append(append([]string(nil), prof...), opt.JVMArgs...)
				}
				r, err := e.measureReqs(ctx, o, req)
				if err != nil {
					return err
				}
				if p && r.Forks[0].Profile == nil {
					return errors.New("a profiled fork without a profile")
				}
				m := measure.Summarize(r.Forks).MeanNsPerOp
				if p {
					profiled = append(profiled, m)
				} else {
					plain = append(plain, m)
				}
			}
		}
		sort.Float64s(plain)
		sort.Float64s(profiled)
		a, b := plain[forks/2], profiled[forks/2]
		fmt.Printf("%-36s %14s %14s %+8.1f %%\n", c.Method, fmtNs(a), fmtNs(b), 100*(b/a-1))
	}
	return nil
}
