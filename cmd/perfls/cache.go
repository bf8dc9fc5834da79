package main

// What perfls keeps for the user: the cache (cache ls|show|gc|verify|clear) and
// the annotations jar (annotations --jar|--install).
import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/perfls/perfls/analysis/report"
	"github.com/perfls/perfls/engine"
	"github.com/perfls/perfls/internal/cli"
)

func (a *app) cacheCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:  "cache ls|show|gc|verify|clear",
		Args: cobra.ArbitraryArgs,
		RunE: cli.Group("ls, show, gc, verify or clear"),
	}
	var limit int
	ls := &cobra.Command{Use: "ls [--limit N]", Short: "List stored measurements, newest first", Args: cli.NoArgs,
		RunE: a.withEngine(engine.InProcess, func(cmd *cobra.Command, eng *engine.Engine) error {
			rows, total, path, err := eng.CacheList(cmd.Context(), limit)
			if err != nil {
				return err
			}
			report.WriteCacheList(a.stdout, rows)
			if len(rows) < total {
				fmt.Fprintf(a.stderr, "the newest %d of %d measurements in %s (--limit 0 lists all)\n", len(rows), total, path)
			} else {
				fmt.Fprintf(a.stderr, "%d measurements in %s\n", total, path)
			}
			return nil
		})}
	ls.Flags().IntVar(&limit, "limit", 100, "list the newest N measurements (0: all; a team store can hold millions)")
	var id int64
	show := &cobra.Command{Use: "show ID", Short: "Print one measurement with its raw samples summarised",
		Args: cli.OneInt(&id, "cache show needs one measurement ID (see perfls cache ls)", "a measurement ID"),
		RunE: a.withEngine(engine.InProcess, func(cmd *cobra.Command, eng *engine.Engine) error {
			m, err := eng.CacheShow(cmd.Context(), id)
			if err == nil {
				report.WriteStoredMeasurement(a.stdout, m)
			}
			return err
		})}
	var maxMB int64
	var maxAge int
	gc := &cobra.Command{Use: "gc [--max-mb N] [--max-age-days D]", Args: cli.NoArgs,
		Short: "Evict the oldest measurements above N MiB, keeping the newest of every series, remove compiled code unused for D days, and compact the file when it evicted or a tenth of it is free",
		RunE: a.withEngine(engine.InProcess, func(cmd *cobra.Command, eng *engine.Engine) error {
			if maxAge < 1 {
				return cli.Usagef("--max-age-days must be ≥ 1")
			}
			n, p, err := eng.GC(cmd.Context(), maxMB<<20, time.Duration(maxAge)*24*time.Hour)
			if err == nil {
				report.WriteGC(a.stdout, n, p.Entries, p.Temp, p.Bytes, maxAge)
			}
			return err
		})}
	gc.Flags().Int64Var(&maxMB, "max-mb", 512, "size limit of the stored samples in MiB")
	gc.Flags().IntVar(&maxAge, "max-age-days", 30, "remove compiled code not used for this many days")
	clear := &cobra.Command{Use: "clear", Short: "Remove every measurement, profile, verdict and bounds-oracle model, run and result", Args: cli.NoArgs,
		RunE: a.withEngine(engine.InProcess, func(cmd *cobra.Command, eng *engine.Engine) error {
			msg, err := eng.CacheClear(cmd.Context())
			if err == nil {
				fmt.Fprintln(a.stdout, msg)
			}
			return err
		})}
	verify := &cobra.Command{Use: "verify", Args: cli.NoArgs,
		Short: "Check every page of the cache file (opening a large one checks its header and schema only); a damaged file is set aside",
		RunE: a.withEngine(engine.InProcess, func(cmd *cobra.Command, eng *engine.Engine) error {
			msg, err := eng.CacheVerify(cmd.Context())
			if err == nil {
				fmt.Fprintln(a.stdout, msg)
			}
			return err
		})}
	cmd.AddCommand(ls, show, gc, verify, clear)
	return cmd
}

func (a *app) annotationsCommand() *cobra.Command {
	var jar, repo string
	var install bool
	cmd := &cobra.Command{
		Use:  "annotations (--jar FILE | --install [--repo DIR])",
		Args: cli.NoArgs,
		RunE: a.withEngine(engine.InProcess, func(cmd *cobra.Command, eng *engine.Engine) error {
			if (jar == "") == !install {
				return cli.Usagef("give --jar FILE or --install")
			}
			path, err := eng.Annotations(cmd.Context(), jar, install, repo)
			if err == nil {
				fmt.Fprintf(a.stdout, "wrote %s\n%s\n", path, engine.AnnotationsDependency())
			}
			return err
		}),
	}
	cmd.Flags().StringVar(&jar, "jar", "", "write the jar to this file")
	cmd.Flags().BoolVar(&install, "install", false, "install the jar and its pom into the local Maven repository")
	cmd.Flags().StringVar(&repo, "repo", "", "the local Maven repository (default ~/.m2/repository)")
	return cmd
}
