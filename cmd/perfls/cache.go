package main

import (
	"encoding/json"
	"fmt"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/perfls/perfls/analysis/report"
	"github.com/perfls/perfls/analysis/stats"
	"github.com/perfls/perfls/cache"
	"github.com/perfls/perfls/engine"
)

func (a *app) cacheCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "cache ls|show|gc|clear",
		Short: "Inspect and trim the measurement cache",
		Long:  "The cache lives in $PERFLS_CACHE_DIR, else the user cache directory (~/.cache/perfls on Linux).",
		Args:  cobra.ArbitraryArgs,
		RunE:  subcommandNeeded("ls, show, gc or clear"),
	}
	withStore := func(run func(*cobra.Command, *engine.Engine, *cache.Store, []string) error) func(*cobra.Command, []string) error {
		return func(cmd *cobra.Command, args []string) error {
			eng, err := a.openEngine(cmd.Context(), engine.InProcess)
			if err != nil {
				return err
			}
			defer eng.Close()
			store, err := eng.Store()
			if err != nil {
				return err
			}
			return run(cmd, eng, store, args)
		}
	}
	ls := &cobra.Command{Use: "ls", Short: "List stored measurements, newest first", Args: noArgs,
		RunE: withStore(func(cmd *cobra.Command, _ *engine.Engine, store *cache.Store, _ []string) error {
			entries, err := store.List(cmd.Context())
			if err != nil {
				return err
			}
			tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
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
			fmt.Fprintf(a.stderr, "%d measurements in %s\n", len(entries), store.Path())
			return nil
		})}
	show := &cobra.Command{Use: "show ID", Short: "Print one measurement with its raw samples summarised",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usagef("cache show needs one measurement ID (see perfls cache ls)")
			}
			return nil
		},
		RunE: withStore(func(cmd *cobra.Command, _ *engine.Engine, store *cache.Store, args []string) error {
			id, err := strconv.ParseInt(args[0], 10, 64)
			if err != nil {
				return usagef("%q is not a measurement ID", args[0])
			}
			m, err := store.Get(cmd.Context(), id)
			if err != nil {
				return err
			}
			a.showMeasurement(m)
			return nil
		})}
	var maxMB int64
	var maxAge int
	gc := &cobra.Command{Use: "gc [--max-mb N] [--max-age-days D]", Args: noArgs,
		Short: "Evict the oldest measurements above N MiB, keeping the newest of every series, and remove compiled code unused for D days",
		RunE: withStore(func(cmd *cobra.Command, eng *engine.Engine, _ *cache.Store, _ []string) error {
			if maxAge < 1 {
				return usagef("--max-age-days must be ≥ 1")
			}
			n, p, err := eng.GC(cmd.Context(), maxMB<<20, time.Duration(maxAge)*24*time.Hour)
			if err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "removed %d measurements\n", n)
			fmt.Fprintf(a.stdout, "removed %d compiled harnesses, libraries or projects unused for %d days and %d temporary files (%s)\n",
				p.Entries, maxAge, p.Temp, bytesText(p.Bytes))
			return nil
		})}
	gc.Flags().Int64Var(&maxMB, "max-mb", 512, "size limit of the stored samples in MiB")
	gc.Flags().IntVar(&maxAge, "max-age-days", 30, "remove compiled code not used for this many days")
	clear := &cobra.Command{Use: "clear", Short: "Remove every measurement, verdict and bounds-oracle model, run and result", Args: noArgs,
		RunE: withStore(func(cmd *cobra.Command, _ *engine.Engine, store *cache.Store, _ []string) error {
			if err := store.Clear(cmd.Context()); err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "cleared %s\n", store.Path())
			return nil
		})}
	cmd.AddCommand(ls, show, gc, clear)
	return cmd
}

func (a *app) showMeasurement(m *cache.Measurement) {
	w, k := a.stdout, m.Key
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
