package main

// The editor's Calibrate lens (server.Calibrator): perfls calibrate for
// every workload of one method, through the same measurement service.

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/perfls/perfls/analysis/oracle"
	"github.com/perfls/perfls/cache"
	"github.com/perfls/perfls/measure"
	"github.com/perfls/perfls/measure/service"
	"github.com/perfls/perfls/server"
)

// Calibrate calibrates the bounds oracle on each workload of one method
// (those Measure measures) with req.Forks fresh forks, measured like
// perfls calibrate (its defaults, or the checker's base options when set)
// with the editor's JVM settings, and stores the models with the default
// configuration. A workload that cannot be measured is reported and
// skipped; it fails when none could be calibrated.
func (c *lspChecker) Calibrate(ctx context.Context, req server.CalibrateRequest, report func(string)) ([]cache.OracleKey, error) {
	base := calibrationOptions()
	if c.base.SamplesPerFork > 0 {
		base = c.base // tests: small runs
	}
	base.Forks = req.Forks
	opt, err := measureOptions(base, req.CheckRequest)
	if err != nil {
		return nil, err
	}
	w, err := methodWorkloads(req.CheckRequest)
	if err != nil {
		return nil, err
	}
	store, _, err := cache.OpenStore(ctx, c.cacheDir)
	if err != nil {
		return nil, fmt.Errorf("calibrate: %w", err)
	}
	defer store.Close()
	svc := lazyService{c, req.Budget / time.Duration(max(len(w.reqs), 1))}
	dir := projectDir(req.CheckRequest)
	problems := append([]string(nil), w.problems...)
	var keys []cache.OracleKey
	for i, r := range w.reqs {
		item := workloadItem(r)
		label := fmt.Sprintf("%s(%s)", r.Generator.Method, measure.ArgsKey(item.Args))
		progress := func(p service.Progress) { report(fmt.Sprintf("%d/%d %s: %s", i+1, len(w.reqs), label, p.Message)) }
		resp, key, runs, err := oracleMeasure(ctx, svc, dir, item, opt, progress)
		switch {
		case ctx.Err() != nil:
			return keys, ctx.Err()
		case errors.Is(err, errNoCompile):
			m := resp.CompileErrors[0]
			return keys, fmt.Errorf("the project does not compile: %s:%d: %s (and %d more)", m.File, m.Line, m.Message, len(resp.CompileErrors)-1)
		case err != nil:
			problems = append(problems, fmt.Sprintf("%s: %v", label, err))
			continue
		case len(runs) < 2:
			problems = append(problems, fmt.Sprintf("%s: %d fork measured (the time budget?), calibration needs at least 2", label, len(runs)))
			continue
		}
		if _, err := storeCalibration(ctx, store, key, runs, oracle.Config{Policy: oracle.DefaultPolicy()}, opt); err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", label, err))
			continue
		}
		keys = append(keys, key)
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("nothing calibrated: %s", strings.Join(problems, "; "))
	}
	for _, p := range problems {
		report("not calibrated: " + p)
	}
	return keys, nil
}
