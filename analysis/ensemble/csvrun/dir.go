package csvrun

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/perfls/perfls/analysis/ensemble"
	"github.com/perfls/perfls/internal/input"
)

// Detect loads the runs (Load) and runs the detector on them.
func Detect(ctx context.Context, history, current string, p1 ensemble.Phase1, cfg ensemble.Config) (*ensemble.Report, error) {
	hist, cur, err := Load(ctx, history, current, p1)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return ensemble.Detect(hist, cur, cfg)
}

// Load reads the runs in history and the one run in current (directories of
// NAME.csv with NAME.env beside each) and groups each run's rows into
// intervals (Phase1: cropped to the expected duration, then medians per
// interval). The files are read under input.CSVRun and input.Env, until
// ctx is done.
func Load(ctx context.Context, history, current string, p1 ensemble.Phase1) ([]ensemble.Run, ensemble.Run, error) {
	if history == "" || current == "" {
		return nil, ensemble.Run{}, errors.New("want a history directory and a new run's directory (--history DIR --new DIR)")
	}
	hist, err := ReadDir(ctx, history, p1)
	if err != nil {
		return nil, ensemble.Run{}, err
	}
	cur, err := ReadDir(ctx, current, p1)
	if err != nil {
		return nil, ensemble.Run{}, err
	}
	if len(cur) != 1 {
		return nil, ensemble.Run{}, fmt.Errorf("%s holds %d runs: put the one new run's CSV and .env there", current, len(cur))
	}
	return hist, cur[0], nil
}

// ReadDir reads every NAME.csv of dir, in name order, as one run.
func ReadDir(ctx context.Context, dir string, p1 ensemble.Phase1) ([]ensemble.Run, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.csv"))
	if err == nil && len(paths) == 0 {
		if _, serr := os.Stat(dir); serr != nil {
			err = serr
		} else {
			err = fmt.Errorf("%s: no .csv files: want one NAME.csv (and NAME.env) per run", dir)
		}
	}
	if err != nil {
		return nil, err
	}
	sort.Strings(paths)
	var runs []ensemble.Run
	for _, p := range paths {
		r, err := readRun(ctx, p, p1)
		if err != nil {
			return nil, err
		}
		runs = append(runs, r)
	}
	return runs, nil
}

func readRun(ctx context.Context, path string, p1 ensemble.Phase1) (ensemble.Run, error) {
	name := strings.TrimSuffix(filepath.Base(path), ".csv")
	if err := checkName(name); err != nil {
		return ensemble.Run{}, fmt.Errorf("%s: the run's name, its file's: %w", input.Printable(path), err)
	}
	f, err := input.Open(ctx, path, input.CSVRun)
	if err != nil {
		return ensemble.Run{}, err
	}
	defer f.Close()
	t, err := Parse(f, path)
	if err != nil {
		return ensemble.Run{}, err
	}
	envPath := strings.TrimSuffix(path, ".csv") + ".env"
	ef, err := input.Open(ctx, envPath, input.Env)
	if errors.Is(err, fs.ErrNotExist) {
		return ensemble.Run{}, fmt.Errorf("%s: no environment file %s beside it: write key=value lines (cores=8, memory=16g, jvm=21)", path, filepath.Base(envPath))
	}
	if err != nil {
		return ensemble.Run{}, err
	}
	defer ef.Close()
	env, err := ParseEnv(ef, envPath)
	if err != nil {
		return ensemble.Run{}, err
	}
	iv, err := p1.Apply(t.Times, t.Rows)
	if err != nil {
		return ensemble.Run{}, fmt.Errorf("%s: %w", path, err)
	}
	return ensemble.Run{Name: name, Env: env, Counters: t.Counters, Intervals: iv}, nil
}
