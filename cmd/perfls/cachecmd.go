package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/perfls/perfls/analysis/report"
	"github.com/perfls/perfls/analysis/stats"
	"github.com/perfls/perfls/cache"
	"github.com/perfls/perfls/measure"
)

const cacheUsage = `Usage:
  perfls cache ls              list stored measurements, newest first
  perfls cache show ID         print one measurement with its raw samples summarised
  perfls cache gc [--max-mb N] [--max-age-days D]
                               evict the oldest measurements above N MiB (default 512),
                               keeping the newest of every series, and remove compiled
                               harnesses, libraries and projects not used for D days
                               (default 30) and left-over temporary files
  perfls cache clear           remove every measurement, verdict and bounds-oracle model, run and result

The cache lives in $PERFLS_CACHE_DIR, else the user cache directory.`

func runCache(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	if len(args) == 0 {
		return exitUsage, usageError{"cache needs a subcommand: ls, show, gc or clear"}
	}
	dir, err := cache.Dir()
	if err != nil {
		return exitUsage, err
	}
	store, notice, err := cache.OpenStore(ctx, dir)
	if err != nil {
		return exitUsage, err
	}
	defer store.Close()
	if notice != "" {
		fmt.Fprintln(stderr, "perfls:", notice)
	}
	sub, rest := args[0], args[1:]
	switch sub {
	case "ls":
		entries, err := store.List(ctx)
		if err != nil {
			return exitUsage, err
		}
		tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tMEASURED\tMETHOD\tWORKLOAD\tARGS\tFORKS\tSIZE")
		for _, e := range entries {
			kind := ""
			if e.Preliminary {
				kind = " (preliminary)"
			}
			fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%d%s\t%s\n", e.ID, e.CreatedAt.Local().Format(time.DateTime),
				e.Key.Method, e.Key.Workload, e.Key.Args, e.Forks, kind, bytesText(e.Bytes))
		}
		tw.Flush()
		fmt.Fprintf(stderr, "%d measurements in %s\n", len(entries), store.Path())
	case "show":
		if len(rest) != 1 {
			return exitUsage, usageError{"cache show needs one measurement ID (see perfls cache ls)"}
		}
		id, err := strconv.ParseInt(rest[0], 10, 64)
		if err != nil {
			return exitUsage, usageError{fmt.Sprintf("%q is not a measurement ID", rest[0])}
		}
		m, err := store.Get(ctx, id)
		if err != nil {
			return exitUsage, err
		}
		showMeasurement(stdout, m)
	case "gc":
		fl := flag.NewFlagSet("cache gc", flag.ContinueOnError)
		fl.SetOutput(stderr)
		maxMB := fl.Int64("max-mb", 512, "size limit of the stored samples in MiB")
		maxAge := fl.Int("max-age-days", 30, "remove compiled code not used for this many days")
		if err := fl.Parse(rest); err != nil {
			return exitUsage, nil
		}
		if *maxAge < 1 {
			return exitUsage, usageError{"--max-age-days must be ≥ 1"}
		}
		n, err := store.GC(ctx, *maxMB<<20, true)
		if err != nil {
			return exitUsage, err
		}
		fmt.Fprintf(stdout, "removed %d measurements\n", n)
		p, err := measure.PruneFiles(dir, time.Duration(*maxAge)*24*time.Hour)
		if err != nil {
			return exitUsage, err
		}
		fmt.Fprintf(stdout, "removed %d compiled harnesses, libraries or projects unused for %d days and %d temporary files (%s)\n",
			p.Entries, *maxAge, p.Temp, bytesText(p.Bytes))
	case "clear":
		if err := store.Clear(ctx); err != nil {
			return exitUsage, err
		}
		fmt.Fprintf(stdout, "cleared %s\n", store.Path())
	case "-h", "--help", "help":
		fmt.Fprintln(stdout, cacheUsage)
	default:
		return exitUsage, usageError{fmt.Sprintf("unknown cache subcommand %q\n\n%s", sub, cacheUsage)}
	}
	return exitOK, nil
}

func showMeasurement(w io.Writer, m *cache.Measurement) {
	k := m.Key
	fmt.Fprintf(w, "measurement %d, %s\n", m.ID, m.CreatedAt.Local().Format(time.DateTime))
	fmt.Fprintf(w, "  method    %s\n  workload  %s\n  args      %s\n", k.Method, k.Workload, k.Args)
	fmt.Fprintf(w, "  code      %s\n  jvm       %s\n  harness   %s\n  machine   %s\n", k.Code, k.JVM, k.Harness, k.Machine)
	var env any
	if json.Unmarshal(m.Environment, &env) == nil {
		b, _ := json.Marshal(env)
		fmt.Fprintf(w, "  env       %s\n", b)
	}
	for i, f := range m.Forks {
		s := stats.Summarize(f.NsPerOp)
		lo, hi := stats.MeanCI(s, 0.95)
		fmt.Fprintf(w, "  fork %d: %d samples, mean %s/op [%s, %s], median %s/op\n", i+1, s.N,
			report.Duration(s.Mean), report.Duration(lo), report.Duration(hi), report.Duration(s.Median))
	}
}

func bytesText(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	default:
		return fmt.Sprintf("%d B", n)
	}
}
