package engine

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/perfls/perfls/analysis/profile"
	"github.com/perfls/perfls/internal/fixture"
	"github.com/perfls/perfls/measure"
	"github.com/perfls/perfls/measure/service"
)

// TestSelectWorkloads: what a command measures when --workload and --args
// are left out comes from the method's source, as the editor's lenses take
// it, and what the flags give overrides it; refusals say why and what to do.
func TestSelectWorkloads(t *testing.T) {
	dir := fixture.Project(t, fixture.WorkloadForms)
	cases := []struct {
		name string
		sel  Selection
		want []string // Workload.String() of each
		from []string // Selected.From, nil: not checked
		err  []string // substrings of the refusal
		warn bool     // a warning about a consumed argument
	}{
		{name: "@Workload with a documented minimum", sel: Selection{Method: "w.Hot#compute"},
			want: []string{"w.Hot#compute(int[])[w.Hot#ints(int)](64)"}, from: []string{"@Workload, @Param minimum"}},
		{name: "--args override the minimum", sel: Selection{Method: "w.Hot#compute", Args: "300", ArgsSet: true},
			want: []string{"w.Hot#compute(int[])[w.Hot#ints(int)](300)"}, from: []string{"@Workload"}},
		{name: "--workload overrides the binding, with its minimum", sel: Selection{Method: "w.Hot#compute", Workload: "w.Hot#shuffled"},
			want: []string{"w.Hot#compute[w.Hot#shuffled](32)"}, from: []string{"@Param minimum"}},
		{name: "--workload and --args", sel: Selection{Method: "w.Hot#compute", Workload: "w.Hot#bare", Args: "7", ArgsSet: true},
			want: []string{"w.Hot#compute[w.Hot#bare](7)"}, from: []string{""}},
		{name: "--workload none calls the method itself", sel: Selection{Method: "w.Hot#over(long)", Workload: NoWorkload, Args: "5", ArgsSet: true},
			want: []string{"w.Hot#over(long)(5)"}},
		{name: "no documented minimum", sel: Selection{Method: "w.Hot#bareSum"},
			err: []string{"parameter n of bare has no documented minimum", "--args", "--workload none"}},
		{name: "no documented minimum, --args given", sel: Selection{Method: "w.Hot#bareSum", Args: "10", ArgsSet: true},
			want: []string{"w.Hot#bareSum(int[])[w.Hot#bare(int)](10)"}},
		{name: "@Workloads: each binding", sel: Selection{Method: "w.Hot#twice"},
			want: []string{"w.Hot#twice(int[])[w.Hot#ints(int)](64)", "w.Hot#twice(int[])[w.Hot#shuffled(int)](32)"}},
		{name: "@Workloads with --args", sel: Selection{Method: "w.Hot#twice", Args: "100", ArgsSet: true},
			want: []string{"w.Hot#twice(int[])[w.Hot#ints(int)](100)", "w.Hot#twice(int[])[w.Hot#shuffled(int)](100)"}},
		{name: "a formula's instances", sel: Selection{Method: "w.Hot#viaFormula"},
			want: []string{"w.Hot#viaFormula(int[])[w.Hot#ints(int)](64)", "w.Hot#viaFormula(int[])[w.Hot#ints(int)](128)"}, from: []string{"a formula", "a formula"}},
		{name: "a formula's generator with --args", sel: Selection{Method: "w.Hot#viaFormula", Args: "9", ArgsSet: true},
			want: []string{"w.Hot#viaFormula(int[])[w.Hot#ints(int)](9)"}},
		{name: "overloads: the bound one", sel: Selection{Method: "w.Hot#over"},
			want: []string{"w.Hot#over(int[])[w.Hot#ints(int)](64)"}},
		{name: "instance method: receiver from the generator", sel: Selection{Method: "w.Hot#add"},
			want: []string{"w.Hot#add(int)[w.Hot#counters(int)](3)"}},
		{name: "a consumed argument is warned about", sel: Selection{Method: "w.Hot#chars"},
			want: []string{"w.Hot#chars(Reader)[w.Hot#texts(int)](64)"}, warn: true},
		{name: "a workload loop: its own minimums", sel: Selection{Method: "w.Hot#charsLoop"},
			want: []string{"w.Hot#charsLoop(64)"}, from: []string{"@Param minimum"}},
		{name: "a method bound to a loop", sel: Selection{Method: "w.Lock#cross"},
			want: []string{"w.Lock#cross(Counter,int)[w.Lock#traffic(SPLController,int)](200)"}},
		{name: "not in the source: as named", sel: Selection{Method: "java.util.Arrays#hashCode(int[])", Workload: "w.Hot#ints", Args: "8", ArgsSet: true},
			want: []string{"java.util.Arrays#hashCode(int[])[w.Hot#ints](8)"}},
		{name: "bad --method", sel: Selection{Method: "w.Hot"}, err: []string{"--method"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := SelectWorkloads(context.Background(), dir, c.sel)
			if c.err != nil {
				if err == nil {
					t.Fatalf("no refusal; got %v", got.Workloads)
				}
				for _, s := range c.err {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("refusal %q lacks %q", err, s)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, w := range got.Workloads {
				names = append(names, w.String())
			}
			if !slices.Equal(names, c.want) {
				t.Errorf("workloads %q, want %q", names, c.want)
			}
			if c.from != nil && !slices.Equal(got.From, c.from) {
				t.Errorf("from %q, want %q", got.From, c.from)
			}
			if (len(got.Warnings) > 0) != c.warn || c.warn && !strings.Contains(got.Warnings[0], "workload loop") {
				t.Errorf("warnings %q", got.Warnings)
			}
		})
	}
}

// TestModelPlanDefaults: a model's generator is the method's only binding
// and --values need no documented range; several bindings are refused
// with their names; a loop varies its first own parameter.
func TestModelPlanDefaults(t *testing.T) {
	dir := fixture.Project(t, fixture.WorkloadForms)
	cases := []struct {
		method, values string
		gen, param     string
		values0        int64
		err            string
	}{
		{method: "w.Hot#compute", values: "100..800:4", gen: "w.Hot#ints(int)", param: "n", values0: 100},
		{method: "w.Hot#compute", gen: "w.Hot#ints(int)", param: "n", values0: 64}, // @Param(min = 64, max = 512)
		{method: "w.Hot#bareSum", values: "10,20,40", gen: "w.Hot#bare(int)", param: "n", values0: 10},
		{method: "w.Hot#bareSum", err: "give --values"},
		{method: "w.Hot#twice", values: "10,20,40", err: "2 workloads (w.Hot#ints(int), w.Hot#shuffled(int))"},
		{method: "w.Hot#charsLoop", values: "10,20,40", param: "n", values0: 10},
		{method: "w.Hot#nosuch", values: "10,20,40", err: "not declared in the project"},
	}
	for _, c := range cases {
		w, err := ParseWorkload(c.method, "", "")
		if err != nil {
			t.Fatal(err)
		}
		got, param, values, err := modelPlan(context.Background(), ModelRequest{Dir: dir, Workload: w, Values: c.values})
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s %s: %v, want a refusal with %q", c.method, c.values, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s %s: %v", c.method, c.values, err)
			continue
		}
		if gen := got.generator(); gen != c.gen || param != c.param || len(values) < 3 || values[0] != c.values0 {
			t.Errorf("%s %s: generator %q, parameter %s, values %v", c.method, c.values, gen, param, values)
		}
	}
	// Overloads named without types: the bound one, pinned, so that the
	// values are measured on it (the conformance matrix's model×overload).
	w, _ := ParseWorkload("w.Hot#over", "", "")
	got, _, _, err := modelPlan(context.Background(), ModelRequest{Dir: dir, Workload: w, Values: "10,20,40"})
	if err != nil || !slices.Equal(got.Method.Params, []string{"int[]"}) {
		t.Errorf("overloads: %v, method %s", err, got.Method)
	}
}

// tiny are the options of the JVM tests below: one short fork.
var tiny = measure.Options{Forks: 1, SamplesPerFork: 3, Warmup: 20 * time.Millisecond, MaxWarmup: 300 * time.Millisecond}

// selectOne is the only workload sel names in dir.
func selectOne(t *testing.T, dir string, sel Selection) Workload {
	t.Helper()
	got, err := SelectWorkloads(context.Background(), dir, sel)
	if err != nil || len(got.Workloads) != 1 {
		t.Fatalf("select %+v: %v %v", sel, got, err)
	}
	return got.Workloads[0]
}

// TestMeasureDefaults measures annotated methods with no flags (the
// binding and its documented minimum), with --args overriding, an
// instance method (the receiver in args[0]), and the documented contract
// of generators: their arguments are built once per fork, so a Reader is
// empty after the first call, and the per-call form is a workload loop.
func TestMeasureDefaults(t *testing.T) {
	ctx := context.Background()
	e := openReplayed(t, "measure-defaults", measure.Options{})
	dir := fixture.Project(t, fixture.WorkloadForms)
	measureIt := func(w Workload) (*Measured, error) {
		return e.Measure(ctx, MeasureRequest{Dir: dir, Workload: w, Options: tiny, Phase: service.PhaseFull})
	}
	for _, c := range []struct {
		sel       Selection
		gen, args string
	}{
		{Selection{Method: "w.Hot#compute"}, "w.Hot#ints(int)", "64"},
		{Selection{Method: "w.Hot#compute", Args: "300", ArgsSet: true}, "w.Hot#ints(int)", "300"},
		{Selection{Method: "w.Hot#add"}, "w.Hot#counters(int)", "3"},
		{Selection{Method: "w.Hot#charsLoop"}, "", "64"},
	} {
		m, err := measureIt(selectOne(t, dir, c.sel))
		if err != nil {
			t.Errorf("%+v: %v", c.sel, err)
			continue
		}
		if m.Workload != c.gen || measure.ArgsKey(m.Args) != c.args || len(m.Result.Forks) != 1 {
			t.Errorf("%+v: measured %s[%s](%s), %d forks", c.sel, m.Method, m.Workload, measure.ArgsKey(m.Args), len(m.Result.Forks))
		}
	}
	// One Reader for every call: the second call finds it empty.
	_, err := measureIt(selectOne(t, dir, Selection{Method: "w.Hot#chars"}))
	if err == nil || !strings.Contains(err.Error(), "the reader is empty") {
		t.Errorf("a Reader from a generator: %v, want the method's own failure on the second call", err)
	}
}

// TestModelAndPredictDefaults extracts a model of an annotated method named
// with --method and --values only (its binding has no documented range to
// need) and predicts from the stored model by method.
func TestModelAndPredictDefaults(t *testing.T) {
	ctx := context.Background()
	e := openReplayed(t, "model-and-predict-defaults", measure.Options{})
	dir := fixture.Project(t, fixture.WorkloadForms)
	w, err := ParseWorkload("w.Hot#bareSum", "", "")
	if err != nil {
		t.Fatal(err)
	}
	m, err := e.ExtractModel(ctx, ModelRequest{Dir: dir, Workload: w, Values: "64,128,256", Options: tiny, NoCallees: true, MaxForks: 1})
	if err != nil {
		t.Fatal(err)
	}
	if op := m.Operations[0]; op.Workload != "w.Hot#bare(int)" || op.Parameter != "n" {
		t.Errorf("operation %s[%s] over %s", op.Method, op.Workload, op.Parameter)
	}
	p, err := e.PredictStored(ctx, "w.Hot#bareSum", "n=100")
	if err != nil || p.Parameter != "n" || len(p.Predictions) == 0 {
		t.Errorf("predict from the stored model: %+v %v", p, err)
	}
	if _, err := e.PredictStored(ctx, "w.Hot#compute", "n=100"); err == nil || !strings.Contains(err.Error(), "perfls model --method w.Hot#compute") {
		t.Errorf("no stored model: %v", err)
	}
}

// TestCalibrateVerifyDefaults calibrates an annotated method with no flags
// and verifies it by method alone: its calibrated workloads.
func TestCalibrateVerifyDefaults(t *testing.T) {
	ctx := context.Background()
	e := openReplayed(t, "calibrate-verify-defaults", measure.Options{})
	dir := fixture.Project(t, fixture.WorkloadForms)
	if _, err := e.CalibratedWorkloads(ctx, Selection{Method: "w.Hot#compute"}); err == nil || !strings.Contains(err.Error(), "run perfls calibrate") {
		t.Errorf("nothing calibrated: %v", err)
	}
	opt := tiny
	opt.Forks, opt.MinSampleTime = 2, time.Millisecond
	cal, err := e.Calibrate(ctx, CalibrateRequest{Dir: dir, Workload: selectOne(t, dir, Selection{Method: "w.Hot#compute"}), Options: opt})
	if err != nil {
		t.Fatal(err)
	}
	ws, err := e.CalibratedWorkloads(ctx, Selection{Method: "w.Hot#compute"})
	if err != nil || len(ws) != 1 || ws[0].generator() != cal.Key.Workload || measure.ArgsKey(ws[0].Args) != "64" {
		t.Fatalf("calibrated workloads %v %v (calibrated %v)", ws, err, cal.Key)
	}
	if _, err := e.CalibratedWorkloads(ctx, Selection{Method: "w.Hot#compute", Args: "65", ArgsSet: true}); err == nil {
		t.Errorf("other arguments matched the calibration")
	}
	j, err := e.Verify(ctx, VerifyRequest{Dir: dir, Workload: ws[0], Forks: 1, ForkTimeout: time.Minute})
	if err != nil || j.Method != cal.Key.Method {
		t.Errorf("verify: %+v %v", j, err)
	}
}

// lineOf is the 1-based line of the first "// mark: name" in the fixture's file.
func lineOf(t *testing.T, file, name string) int {
	t.Helper()
	src := fixture.WorkloadForms[file]
	i := strings.Index(src, "// mark: "+name)
	if i < 0 {
		t.Fatalf("no mark %s in %s", name, file)
	}
	return 1 + strings.Count(src[:i], "\n")
}

// TestProfileLoops profiles workload loops: four threads contending for a
// monitor (the method bound to the loop, named with no flags, and through
// the editor's Profile lens), whose one-lane bridge names the monitor at
// the contended line, and one thread, whose set-up between spans is left
// out, forked and quick.
func TestProfileLoops(t *testing.T) {
	ctx := context.Background()
	e := openEngine(t, measure.Options{})
	dir := fixture.Project(t, fixture.WorkloadForms)
	const file = "src/w/Lock.java"
	contended, setup := lineOf(t, file, "contended"), lineOf(t, file, "setup")
	opt := measure.Options{SamplesPerFork: 6, Warmup: 200 * time.Millisecond, MaxWarmup: time.Second}

	four := selectOne(t, dir, Selection{Method: "w.Lock#cross"})
	p, err := e.Profile(ctx, ProfileRequest{Dir: dir, Workload: four, Options: opt})
	if err != nil {
		t.Fatal(err)
	}
	r := p.Report
	bridge := false
	for _, f := range r.Findings {
		bridge = bridge || f.Kind == profile.FindingOneLaneBridge && f.File == file && f.Line == contended && f.Evidence["monitor_class"] == "w.Lock$Counter"
	}
	blocked := false
	for _, b := range r.Blocking {
		blocked = blocked || b.Kind == profile.KindEnter && b.Class == "w.Lock$Counter" && b.Line == contended && b.Threads >= 2
	}
	if !bridge || !blocked || r.Iterations != 6 || len(r.Hot) == 0 || r.Hot[0].Line != contended {
		t.Errorf("four threads: bridge %v, blocking %v, %d iterations\n%s", bridge, blocked, r.Iterations, r.Text(5))
	}
	for _, b := range r.Blocking {
		if b.File == "" && b.Method == "" {
			t.Errorf("blocking without a place: %+v", b)
		}
	}

	one := selectOne(t, dir, Selection{Method: "w.Lock#cross", Workload: "w.Lock#alone"})
	for _, phase := range []service.Phase{service.PhaseFull, service.PhaseQuick} {
		p, err := e.Profile(ctx, ProfileRequest{Dir: dir, Workload: one, Options: opt, Phase: phase})
		if err != nil {
			t.Fatalf("one thread, phase %v: %v", phase, err)
		}
		r := p.Report
		if len(r.Hot) == 0 || r.Hot[0].Line != contended || r.Iterations == 0 {
			t.Errorf("one thread, phase %v: hot %+v\n%s", phase, r.Hot, r.Text(5))
		}
		for _, a := range r.Allocations {
			if a.File == file && a.Line == setup {
				t.Errorf("one thread, phase %v: the set-up between spans is in the profile: %+v", phase, a)
			}
		}
	}

	// The editor's Profile lens on the method bound to the loop.
	req := MethodRequest{Root: dir, File: filepath.Join(dir, file), Class: "w.Lock", Method: "cross", Params: []string{"Counter", "int"}}
	ps, err := e.ProfileMethod(ctx, req, func(string) {})
	if err != nil || len(ps) != 1 || ps[0].Report.Iterations == 0 {
		t.Errorf("the Profile lens: %d profiles, %v", len(ps), err)
	}
}
