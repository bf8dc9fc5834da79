package main

// The conformance matrix (docs/conformance.md): every action × every documented
// workload form, on a project written from the documentation alone
// (internal/fixture/conformance). Each cell either works, with a result
// that is real (a figure, a verdict, a profile, a model), or is refused
// with a message that says why and what to do. The tables below are the
// whole specification: a new action or form is one row, and its cells one
// line each. docs/conformance.md is rendered from them
// (TestConformanceDoc; -update rewrites it).

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfls/perfls/engine"
)

var updateConformance = flag.Bool("update", false, "rewrite the generated part of docs/conformance.md from the conformance matrix")

// outcome is what a cell of the matrix is expected to do.
type outcome int

const (
	// works: the action does its work on the form, and the result is real.
	works outcome = iota
	// refused: the action refuses, with a message holding says (why, and
	// what to do).
	refused
	// notOffered: there is nothing to run — the editor shows no such lens
	// for the method (absent: the test asserts it), or the action has no
	// way to name the form. why says which, and what to use instead.
	notOffered
	// knownFailure: the cell fails today (why says how); it is run, counted
	// as failing, and the test fails when it starts to meet intended.
	knownFailure
)

// want is a cell's expectation.
type want struct {
	outcome outcome
	says    []string // refused: substrings of the message
	why     string   // refused, notOffered, knownFailure: the table's note
	// intended is what a knownFailure cell should do once fixed.
	intended *want
	// absent: a notOffered lens that the editor must not show.
	absent bool
}

func ok() want { return want{outcome: works} }

// refuse expects a refusal whose message holds every one of says; why is
// the table's note (by default the first of says).
func refuse(why string, says ...string) want {
	if len(says) == 0 {
		says = []string{why}
	}
	return want{outcome: refused, says: says, why: why}
}

func notOffer(why string) want { return want{outcome: notOffered, why: why} }

// noLensHere is a lens the editor does not show on the method (asserted).
func noLensHere(why string) want { return want{outcome: notOffered, why: why, absent: true} }

// failing marks a cell that fails today, with what it should do.
func failing(why string, intended want) want {
	return want{outcome: knownFailure, why: why, intended: &intended}
}

// form is one documented way of giving a method its workload, as the
// fixture writes it.
type form struct {
	id, title string
	// how: the fixture's method and what names the workload (the table's
	// legend).
	how string
	// sel is what measure, profile, calibrate and verify are given: --method,
	// --workload, --args.
	sel engine.Selection
	// values are model's --values ("": the generator's @Param range, a grid
	// of 4 values).
	values string
	// file declares the method (relative to the project); params are its
	// parameter types as the editor names them (lenses, and the check lens's
	// formulas).
	file   string
	params []string
	// formula is a substring of this form's formula (check, the check lens,
	// bisect's formula mode).
	formula string
	// assign is predict's NAME=VALUE.
	assign string
	// unaffected: the method does not reach Step.java, so "slow step" does
	// not make it slower (bisect finds nothing, rightly).
	unaffected bool
}

// conformanceForms are the columns: every workload form the documentation
// describes (docs/measurement.md "Workloads" and "What a command measures
// when the workload is left out", README "Writing formulas",
// docs/revisions.md).
var conformanceForms = []form{
	{id: "workload", title: "@Workload", how: "`conf.Sums#total(int[])` bound with `@Workload(\"conf.Sums#ints\")`; `--args 64`",
		sel: engine.Selection{Method: "conf.Sums#total", Args: "64", ArgsSet: true}, values: "64,128,256,512",
		file: "src/conf/Sums.java", params: []string{"int[]"}, formula: "conf.Sums#total(64)", assign: "n=100"},
	{id: "range", title: "@Param range", how: "the same method with nothing but `--method`: the generator's `@Param(min = 64, max = 1024)` gives the arguments (its minimum) and the model's values (its range)",
		sel: engine.Selection{Method: "conf.Sums#total"}, file: "src/conf/Sums.java", params: []string{"int[]"}, assign: "n=100"},
	{id: "norange", title: "no @Param", how: "`conf.Sums#first(int[])` bound to `raw(int n)`, whose parameter documents no range; nothing but `--method`",
		sel: engine.Selection{Method: "conf.Sums#first"}, file: "src/conf/Sums.java", params: []string{"int[]"}, assign: "n=100"},
	{id: "bracket", title: "SELF[gen](n)", how: "`conf.Sums#weighted(int[])`, measured by its formula `SELF[ints](n) <= 4 * conf.Sums#plain[ints](n)`",
		sel: engine.Selection{Method: "conf.Sums#weighted"}, values: "64,128,256,512",
		file: "src/conf/Sums.java", params: []string{"int[]"}, formula: "SELF[ints](n) <= 4 * conf.Sums#plain[ints](n)", assign: "n=100"},
	{id: "flag", title: "--workload", how: "`conf.Sums#plain(int[])`, no bindings: `--workload conf.Sums#ints --args 128`",
		sel: engine.Selection{Method: "conf.Sums#plain", Workload: "conf.Sums#ints", Args: "128", ArgsSet: true}, values: "64,128,256,512",
		file: "src/conf/Sums.java", params: []string{"int[]"}, assign: "n=100", unaffected: true},
	{id: "args", title: "--args", how: "`conf.Sums#triangle(int)`, no generator: called with `--args 1000`",
		sel: engine.Selection{Method: "conf.Sums#triangle", Args: "1000", ArgsSet: true}, values: "1000,2000,4000,8000",
		file: "src/conf/Sums.java", params: []string{"int"}, formula: "conf.Sums#triangle(1000)", assign: "n=1500"},
	{id: "none", title: "--workload none", how: "`conf.Sums#squares(int)`, bound to `sizes`, called itself: `--workload none --args 500`",
		sel: engine.Selection{Method: "conf.Sums#squares", Workload: engine.NoWorkload, Args: "500", ArgsSet: true}, values: "500,1000,2000,4000",
		file: "src/conf/Sums.java", params: []string{"int"}, assign: "n=1500"},
	{id: "loop", title: "loop, 1 thread", how: "`conf.Loops#join(List)` bound to the workload loop `joins(SPLController spl, @Param(min = 500) int n)`, a fresh list per call; its formula `SELF[joins](n) <= 4 * conf.Loops#joinPlain[plainJoins](n)`",
		sel: engine.Selection{Method: "conf.Loops#join"}, values: "500,1000,2000,4000",
		file: "src/conf/Loops.java", params: []string{"List"}, formula: "SELF[joins](n) <= 4 * conf.Loops#joinPlain[plainJoins](n)", assign: "n=1500"},
	{id: "threads", title: "loop, 2 threads", how: "`conf.Loops#addAll(Tally, int)` bound to the loop `contend`, which runs it in two threads per operation on one monitor; its formula compares it with `addAllPlain[plainContend](n)`",
		sel: engine.Selection{Method: "conf.Loops#addAll"}, values: "20000,30000,45000,60000",
		file: "src/conf/Loops.java", params: []string{"Tally", "int"}, formula: "SELF[contend](n) <= 4 * conf.Loops#addAllPlain[plainContend](n)", assign: "n=25000"},
	{id: "loopitself", title: "--method LOOP", how: "the loop `conf.Loops#joins` named with `--method`: its own workload, with its documented minimums",
		sel: engine.Selection{Method: "conf.Loops#joins"}, values: "500,1000,2000,4000",
		file: "src/conf/Loops.java", params: []string{"SPLController", "int"}, assign: "n=1500"},
	{id: "instance", title: "receiver args[0]", how: "the instance method `conf.Counter#count(String)`: `texts` builds `{new Counter(), text}`; bound by `@Workload` and by its formula `SELF[texts](n) <= 4 * conf.Counter#countPlain[texts](n)`",
		sel: engine.Selection{Method: "conf.Counter#count"}, values: "20,40,80,160",
		file: "src/conf/Counter.java", params: []string{"String"}, formula: "SELF[texts](n) <= 4 * conf.Counter#countPlain[texts](n)", assign: "n=100"},
	{id: "ctor", title: "constructor receiver", how: "the instance method `conf.Counter#shifted(int)` with no generator (`--args 5`): DESIGN §5 builds the receiver with the no-argument constructor",
		sel: engine.Selection{Method: "conf.Counter#shifted", Args: "5", ArgsSet: true}, values: "5,10,20,40",
		file: "src/conf/Counter.java", params: []string{"int"}, formula: "conf.Counter#shifted(5)", assign: "x=7"},
	{id: "ctorloop", title: "instance loop", how: "the workload loop `conf.Counter#counting(SPLController, int)`, an instance method: its receiver from the no-argument constructor; in `formulas.spl` it stands for `count` in brackets",
		sel: engine.Selection{Method: "conf.Counter#counting"}, values: "20,40,80,160",
		file: "src/conf/Counter.java", params: []string{"SPLController", "int"}, formula: "conf.Counter#count(String)[conf.Counter#counting](2000)", assign: "n=100"},
	{id: "rev", title: "m@REV in a formula", how: "`formulas.spl`: `conf.Sums#total[conf.Sums#ints](64) <= 2 * conf.Sums#total@v1[conf.Sums#ints](64)`, total now against total at the tag v1",
		sel: engine.Selection{Method: "conf.Sums#total"}, file: "src/conf/Sums.java", params: []string{"int[]"}, formula: "conf.Sums#total@v1[conf.Sums#ints](64)"},
	{id: "overload", title: "overloads, one bound", how: "`conf.Overloads#scale` named without types: `scale(int[])` has `@Workload`, `scale(int[], int)` none",
		sel: engine.Selection{Method: "conf.Overloads#scale"}, values: "64,128,256,512",
		file: "src/conf/Overloads.java", params: []string{"int[]"}, formula: "conf.Overloads#scale[conf.Overloads#ints](64)", assign: "n=100"},
	{id: "typed", title: "overload with types", how: "`conf.Overloads#pick(long[])`, named with its parameter types (both `pick`s are bound), in its formula too",
		sel: engine.Selection{Method: "conf.Overloads#pick(long[])"}, values: "64,128,256,512",
		file: "src/conf/Overloads.java", params: []string{"long[]"}, formula: "conf.Overloads#pick(long[])[longs](n)", assign: "n=100"},
	{id: "ambiguous", title: "overloads, both bound", how: "`conf.Overloads#pick` named without types while `pick(int[])` and `pick(long[])` are both bound (the editor names `pick(int[])`)",
		sel: engine.Selection{Method: "conf.Overloads#pick"}, values: "64,128,256,512",
		file: "src/conf/Overloads.java", params: []string{"int[]"}, formula: "conf.Overloads#pick[conf.Overloads#ints](64)", assign: "n=100"},
}

// defaultForms are the columns TestConformance runs unless
// PERFLS_CONFORMANCE=full: a bound generator, which works through every
// action, and a binding that is refused, with its reasons — so that go test
// ./... stays within minutes on two shared cores. Other columns lean on
// each other (the ambiguous overload's predict and verify read what the
// typed column stored), so they run together, by hand: the full matrix's
// figures are in docs/conformance.md.
var defaultForms = []string{"workload", "norange"}

// action is a row: something perfls does, from the command line (through
// the engine) or the editor (a lens, through the server over a pipe).
type action struct {
	id, title string
	// call says how the test runs it (the table's legend).
	call string
	// lens are the prefixes of the editor lens's title, |-separated; ""
	// for a command.
	lens string
	run  func(m *matrix, f form) (string, error)
}

// conformanceActions are the rows, in the order they run: measurements
// before the actions that reuse them from the cache (measure before check,
// model before predict, calibrate before verify, diff before bisect, the
// commands before the lenses).
var conformanceActions = []action{
	{id: "measure", title: "measure", call: "`engine.SelectWorkloads`, then `Engine.Measure` of each workload", run: (*matrix).measure},
	{id: "check", title: "check", call: "`Engine.Check` of the project; the form's formula instance", run: (*matrix).check},
	{id: "profile-quick", title: "profile --phase quick", call: "`Engine.Profile`, phase quick, of each selected workload", run: (*matrix).profileQuick},
	{id: "profile", title: "profile", call: "`Engine.Profile` (a profiled fork) of each selected workload", run: (*matrix).profileForked},
	{id: "model", title: "model", call: "`Engine.ExtractModel` with `--values` (or the `@Param` range); `perfls model` for `--workload none`", run: (*matrix).model},
	{id: "predict", title: "predict --method", call: "`Engine.PredictStored` from the model stored by the model row", run: (*matrix).predict},
	{id: "calibrate", title: "calibrate", call: "`engine.SelectWorkloads`, then `Engine.Calibrate` (2 forks) of each", run: (*matrix).calibrate},
	{id: "verify", title: "verify", call: "`Engine.CalibratedWorkloads`, then `Engine.Verify` (1 fork) of each", run: (*matrix).verify},
	{id: "diff", title: "diff --method", call: "`Engine.Diff` against the merge base with main (`v1`), limited to the method", run: (*matrix).diff},
	{id: "bisect", title: "bisect --method", call: "`Engine.Bisect v1 HEAD --method`", run: (*matrix).bisectMethod},
	{id: "bisect-formula", title: "bisect (formulas)", call: "`Engine.Bisect v1 HEAD` without `--method`: the form's formula followed", run: (*matrix).bisectFormula},
	{id: "lens-check", title: "lens Check", lens: "▶ Check", call: "the server's Check lens over a pipe (`internal/lsptest`), the engine's actions behind it"},
	{id: "lens-measure", title: "lens Measure", lens: "▶ Measure", call: "the Measure lens"},
	{id: "lens-profile", title: "lens Profile", lens: "▶ Profile", call: "the Profile lens (quick, then forked)"},
	{id: "lens-calibrate", title: "lens Calibrate", lens: "▶ Calibrate|▶ Recalibrate", call: "the Calibrate lens, with 2 forks"},
	{id: "lens-compare", title: "lens Compare with base", lens: "⇄ Compare with base|⇄ vs base", call: "the Compare with base lens"},
}

// cell is one action on one form.
type cell struct {
	action, form string
	want         want
}

// Reasons shared by several cells.
const (
	noFormula    = "check decides formulas; this form has none (it is the command line's, or the binding's)"
	noCheckLens  = "no Check lens: the method has no formula"
	noHistory    = "diff and bisect compare the workloads a method's source binds: --workload and --args are not theirs"
	noLens       = "no lens: the method has no workload in its source (add @Workload or a formula measuring SELF[gen](n)); perfls measure --workload names one"
	editorNames  = "the editor names the method's exact overload and uses its bindings; the form is the command line's"
	noBindingCLI = "the editor measures a method's bindings; --workload none is the command line's"
	noRevision   = "a revision is written in a formula (check's); the other actions measure the working tree, and diff and bisect compare whole commits (their other cells)"
)

// Refusals shared by several cells: what the message says.
var (
	needsReceiver = refuse("an instance method needs a generator that supplies its receiver as args[0]; name one with --workload or bind one with @Workload",
		"needs a generator that supplies the receiver as args[0]", "--workload", "@Workload")
	noMinimum = refuse("the binding's parameter has no documented minimum: add @Param(min = …), or give --args, --workload or --workload none",
		"no documented minimum", "add @Param(min = …)", "--args")
	giveTypes = refuse("two overloads have bindings: give the parameter types",
		"give the parameter types")
	noWorkloadFormula = refuse("the formula names no workload: write the generator in brackets, e.g. SELF[gen](n)",
		"no workload", "write the generator in brackets")
	overloaded = refuse("the method is overloaded: name the parameter types, e.g. conf.Overloads#scale(int[])",
		"is overloaded; name the parameter types")
	noMinimumLens = refuse("the binding's parameter has no documented minimum: add @Param(min = …)",
		"no documented minimum", "add @Param(min = …)")
	noModelWorkload = refuse("a model varies a generator's parameter, and the method has none: bind one with @Workload or name it with --workload",
		"has no workload", "add @Workload", "--workload")
	noModel = refuse("no model stored for the method: run perfls model --method …", "perfls model --method")
	// The history actions on a method with no workload they can use.
	noHistoryWorkload = refuse("no workload of the method (and why, when its binding is not one): add @Workload or a formula measuring SELF[gen](n)",
		"no workload of", "@Workload", "SELF[gen](n)")
	noHistoryMinimum = refuse("no workload of the method: its binding's parameter has no documented minimum (add @Param(min = …)); add @Workload or a formula measuring SELF[gen](n)",
		"no workload of", "no documented minimum", "add @Param(min = …)")
)

// conformanceCells are the matrix: one line per action and form.
var conformanceCells = []cell{
	{"measure", "workload", ok()},
	{"measure", "range", ok()},
	{"measure", "norange", noMinimum},
	{"measure", "bracket", ok()},
	{"measure", "flag", ok()},
	{"measure", "args", ok()},
	{"measure", "none", ok()},
	{"measure", "loop", ok()},
	{"measure", "threads", ok()},
	{"measure", "loopitself", ok()},
	{"measure", "instance", ok()},
	{"measure", "ctor", needsReceiver},
	{"measure", "ctorloop", ok()},
	{"measure", "rev", notOffer(noRevision)},
	{"measure", "overload", ok()},
	{"measure", "typed", ok()},
	{"measure", "ambiguous", giveTypes},

	{"check", "workload", noWorkloadFormula},
	{"check", "range", notOffer(noFormula)},
	{"check", "norange", notOffer(noFormula)},
	{"check", "bracket", ok()},
	{"check", "flag", notOffer(noFormula)},
	{"check", "args", noWorkloadFormula},
	{"check", "none", notOffer(noFormula)},
	{"check", "loop", ok()},
	{"check", "threads", ok()},
	{"check", "loopitself", notOffer(noFormula)},
	{"check", "instance", ok()},
	{"check", "ctor", noWorkloadFormula},
	{"check", "ctorloop", ok()},
	{"check", "rev", ok()},
	{"check", "overload", overloaded},
	{"check", "typed", ok()},
	{"check", "ambiguous", overloaded},

	{"profile-quick", "workload", ok()},
	{"profile-quick", "range", ok()},
	{"profile-quick", "norange", noMinimum},
	{"profile-quick", "bracket", ok()},
	{"profile-quick", "flag", ok()},
	{"profile-quick", "args", ok()},
	{"profile-quick", "none", ok()},
	{"profile-quick", "loop", ok()},
	{"profile-quick", "threads", ok()},
	{"profile-quick", "loopitself", ok()},
	{"profile-quick", "instance", ok()},
	{"profile-quick", "ctor", needsReceiver},
	{"profile-quick", "ctorloop", ok()},
	{"profile-quick", "rev", notOffer(noRevision)},
	{"profile-quick", "overload", ok()},
	{"profile-quick", "typed", ok()},
	{"profile-quick", "ambiguous", giveTypes},

	{"profile", "workload", ok()},
	{"profile", "range", ok()},
	{"profile", "norange", noMinimum},
	{"profile", "bracket", ok()},
	{"profile", "flag", ok()},
	{"profile", "args", ok()},
	{"profile", "none", ok()},
	{"profile", "loop", ok()},
	{"profile", "threads", ok()},
	{"profile", "loopitself", ok()},
	{"profile", "instance", ok()},
	{"profile", "ctor", needsReceiver},
	{"profile", "ctorloop", ok()},
	{"profile", "rev", notOffer(noRevision)},
	{"profile", "overload", ok()},
	{"profile", "typed", ok()},
	{"profile", "ambiguous", giveTypes},

	{"model", "workload", ok()},
	{"model", "range", ok()},
	{"model", "norange", refuse("no values: give --values, or document @Param(min = …, max = …)", "give --values", "@Param(min = …, max = …)")},
	{"model", "bracket", ok()},
	{"model", "flag", ok()},
	{"model", "args", noModelWorkload},
	{"model", "none", refuse("a model varies a generator's parameter, and --workload none names none: name one with --workload, or leave it out for the binding",
		"--workload none names none", "--workload", "leave it out")},
	{"model", "loop", ok()},
	{"model", "threads", ok()},
	{"model", "loopitself", ok()},
	{"model", "instance", ok()},
	{"model", "ctor", noModelWorkload},
	{"model", "ctorloop", ok()},
	{"model", "rev", notOffer(noRevision)},
	{"model", "overload", ok()},
	{"model", "typed", ok()},
	{"model", "ambiguous", giveTypes},

	{"predict", "workload", ok()},
	{"predict", "range", ok()},
	{"predict", "norange", noModel},
	{"predict", "bracket", ok()},
	{"predict", "flag", ok()},
	{"predict", "args", noModel},
	{"predict", "none", noModel},
	{"predict", "loop", ok()},
	{"predict", "threads", ok()},
	{"predict", "loopitself", ok()},
	{"predict", "instance", ok()},
	{"predict", "ctor", noModel},
	{"predict", "ctorloop", ok()},
	{"predict", "rev", notOffer(noRevision)},
	{"predict", "overload", ok()},
	{"predict", "typed", ok()},
	{"predict", "ambiguous", ok()}, // the one stored model of a pick: pick(long[])

	{"calibrate", "workload", ok()},
	{"calibrate", "range", ok()},
	{"calibrate", "norange", noMinimum},
	{"calibrate", "bracket", ok()},
	{"calibrate", "flag", ok()},
	{"calibrate", "args", ok()},
	{"calibrate", "none", ok()},
	{"calibrate", "loop", ok()},
	{"calibrate", "threads", ok()},
	{"calibrate", "loopitself", ok()},
	{"calibrate", "instance", ok()},
	{"calibrate", "ctor", needsReceiver},
	{"calibrate", "ctorloop", ok()},
	{"calibrate", "rev", notOffer(noRevision)},
	{"calibrate", "overload", ok()},
	{"calibrate", "typed", ok()},
	{"calibrate", "ambiguous", giveTypes},

	{"verify", "workload", ok()},
	{"verify", "range", ok()},
	{"verify", "norange", refuse("nothing calibrated: run perfls calibrate --method … first", "run perfls calibrate")},
	{"verify", "bracket", ok()},
	{"verify", "flag", ok()},
	{"verify", "args", ok()},
	{"verify", "none", ok()},
	{"verify", "loop", ok()},
	{"verify", "threads", ok()},
	{"verify", "loopitself", ok()},
	{"verify", "instance", ok()},
	{"verify", "ctor", refuse("nothing calibrated: run perfls calibrate --method … first", "run perfls calibrate")},
	{"verify", "ctorloop", ok()},
	{"verify", "rev", notOffer(noRevision)},
	{"verify", "overload", ok()},
	{"verify", "typed", ok()},
	{"verify", "ambiguous", ok()}, // the one calibrated pick: pick(long[])

	{"diff", "workload", ok()},
	{"diff", "range", ok()},
	{"diff", "norange", noHistoryMinimum},
	{"diff", "bracket", ok()},
	{"diff", "flag", ok()},
	{"diff", "args", noHistoryWorkload},
	{"diff", "none", ok()},
	{"diff", "loop", ok()},
	{"diff", "threads", ok()},
	{"diff", "loopitself", noHistoryWorkload},
	{"diff", "instance", ok()},
	{"diff", "ctor", noHistoryWorkload},
	{"diff", "ctorloop", noHistoryWorkload},
	{"diff", "rev", notOffer(noRevision)},
	{"diff", "overload", ok()},
	{"diff", "typed", ok()},
	{"diff", "ambiguous", ok()},

	{"bisect", "workload", ok()},
	{"bisect", "range", ok()},
	{"bisect", "norange", noHistoryMinimum},
	{"bisect", "bracket", ok()},
	{"bisect", "flag", ok()},
	{"bisect", "args", noHistoryWorkload},
	{"bisect", "none", ok()},
	{"bisect", "loop", ok()},
	{"bisect", "threads", ok()},
	{"bisect", "loopitself", noHistoryWorkload},
	{"bisect", "instance", ok()},
	{"bisect", "ctor", noHistoryWorkload},
	{"bisect", "ctorloop", noHistoryWorkload},
	{"bisect", "rev", notOffer(noRevision)},
	{"bisect", "overload", ok()},
	{"bisect", "typed", ok()},
	{"bisect", "ambiguous", ok()},

	{"bisect-formula", "workload", notOffer(noFormula)},
	{"bisect-formula", "range", notOffer(noFormula)},
	{"bisect-formula", "norange", notOffer(noFormula)},
	{"bisect-formula", "bracket", ok()},
	{"bisect-formula", "flag", notOffer(noFormula)},
	{"bisect-formula", "args", notOffer(noFormula)},
	{"bisect-formula", "none", notOffer(noFormula)},
	{"bisect-formula", "loop", ok()},
	{"bisect-formula", "threads", ok()},
	{"bisect-formula", "loopitself", notOffer(noFormula)},
	{"bisect-formula", "instance", ok()},
	{"bisect-formula", "ctor", notOffer(noFormula)},
	{"bisect-formula", "ctorloop", ok()},
	{"bisect-formula", "rev", ok()},
	{"bisect-formula", "overload", notOffer(noFormula)},
	{"bisect-formula", "typed", ok()},
	{"bisect-formula", "ambiguous", notOffer(noFormula)},

	{"lens-check", "workload", noLensHere(noCheckLens)},
	{"lens-check", "range", noLensHere(noCheckLens)},
	{"lens-check", "norange", noLensHere(noCheckLens)},
	{"lens-check", "bracket", ok()},
	{"lens-check", "flag", noLensHere(noCheckLens)},
	{"lens-check", "args", noLensHere(noCheckLens)},
	{"lens-check", "none", noLensHere(noCheckLens)},
	{"lens-check", "loop", ok()},
	{"lens-check", "threads", ok()},
	{"lens-check", "loopitself", noLensHere(noCheckLens)},
	{"lens-check", "instance", ok()},
	{"lens-check", "ctor", noLensHere(noCheckLens)},
	{"lens-check", "ctorloop", noLensHere(noCheckLens)},
	{"lens-check", "rev", noLensHere(noCheckLens)},
	{"lens-check", "overload", noLensHere(noCheckLens)},
	{"lens-check", "typed", ok()},
	{"lens-check", "ambiguous", noLensHere(noCheckLens)},
}

// lensCells are the cells of the editor's measuring lenses (Measure,
// Profile, Calibrate, Compare with base), which are offered on the same
// methods: those with a workload in their source.
func lensCells(action string) []cell {
	per := map[string]want{
		"workload": ok(), "range": ok(), "bracket": ok(), "loop": ok(), "threads": ok(), "instance": ok(),
		"overload": ok(), "typed": ok(), "ambiguous": ok(),
		"norange": noMinimumLens,
		"flag":    noLensHere(noLens), "args": noLensHere(noLens), "ctor": noLensHere(noLens), "loopitself": noLensHere(noLens),
		"ctorloop": noLensHere(noLens), "rev": notOffer(noRevision),
		"none": notOffer(noBindingCLI),
	}
	var out []cell
	for _, f := range conformanceForms {
		out = append(out, cell{action, f.id, per[f.id]})
	}
	return out
}

// allCells are every cell of the matrix.
func allCells() []cell {
	out := append([]cell(nil), conformanceCells...)
	for _, a := range []string{"lens-measure", "lens-profile", "lens-calibrate", "lens-compare"} {
		out = append(out, lensCells(a)...)
	}
	return out
}

// cellTable indexes cells by action and form, failing on a missing or
// repeated cell or one naming an unknown action or form.
func cellTable(t *testing.T) map[[2]string]want {
	t.Helper()
	actions, forms := map[string]bool{}, map[string]bool{}
	for _, a := range conformanceActions {
		actions[a.id] = true
	}
	for _, f := range conformanceForms {
		forms[f.id] = true
	}
	table := map[[2]string]want{}
	for _, c := range allCells() {
		k := [2]string{c.action, c.form}
		_, twice := table[k]
		switch {
		case !actions[c.action] || !forms[c.form]:
			t.Errorf("cell %s × %s: no such action or form", c.action, c.form)
		case twice:
			t.Errorf("cell %s × %s given twice", c.action, c.form)
		}
		table[k] = c.want
	}
	for _, a := range conformanceActions {
		for _, f := range conformanceForms {
			if _, ok := table[[2]string{a.id, f.id}]; !ok {
				t.Errorf("no cell for %s × %s: add one to conformanceCells", a.id, f.id)
			}
		}
	}
	return table
}

// TestConformanceDoc: every action has a cell for every form, and
// docs/conformance.md shows the matrix as the tables say (-update
// rewrites it).
func TestConformanceDoc(t *testing.T) {
	table := cellTable(t)
	path := filepath.Join("..", "..", "docs", "conformance.md")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	begin := strings.Index(doc, matrixBegin)
	end := strings.Index(doc, matrixEnd)
	if begin < 0 || end < begin {
		t.Fatalf("%s lacks the markers %q … %q", path, matrixBegin, matrixEnd)
	}
	got := doc[begin+len(matrixBegin) : end]
	want := "\n" + renderMatrix(table)
	if got == want {
		return
	}
	if *updateConformance {
		if err := os.WriteFile(path, []byte(doc[:begin+len(matrixBegin)]+want+doc[end:]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s differs from the conformance matrix; run go test ./cmd/perfls -run TestConformanceDoc -update", path)
}

const (
	matrixBegin = "<!-- BEGIN matrix: generated from cmd/perfls/conformance_test.go by go test ./cmd/perfls -run TestConformanceDoc -update -->"
	matrixEnd   = "<!-- END matrix -->"
)

// renderMatrix is the generated part of docs/conformance.md: the table of
// actions × forms, its notes, and the legends of both.
func renderMatrix(table map[[2]string]want) string {
	var b strings.Builder
	var notes []string
	note := func(text string) int {
		for i, n := range notes {
			if n == text {
				return i + 1
			}
		}
		notes = append(notes, text)
		return len(notes)
	}
	b.WriteString("| action |")
	for _, f := range conformanceForms {
		fmt.Fprintf(&b, " %s |", f.title)
	}
	b.WriteString("\n|---|")
	for range conformanceForms {
		b.WriteString(":-:|")
	}
	b.WriteString("\n")
	counts := map[outcome]int{}
	for _, a := range conformanceActions {
		fmt.Fprintf(&b, "| %s |", a.title)
		for _, f := range conformanceForms {
			w := table[[2]string{a.id, f.id}]
			counts[w.outcome]++
			switch w.outcome {
			case works:
				b.WriteString(" ✓ |")
			case refused:
				fmt.Fprintf(&b, " refused %d |", note(w.why))
			case notOffered:
				fmt.Fprintf(&b, " – %d |", note(w.why))
			default:
				fmt.Fprintf(&b, " **fails** %d |", note("known failure: "+w.why))
			}
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "\n%d cells: %d work (✓), %d refused with a reason, %d not offered (–), %d known failures.\n\n",
		len(conformanceActions)*len(conformanceForms), counts[works], counts[refused], counts[notOffered], counts[knownFailure])
	for i, n := range notes {
		fmt.Fprintf(&b, "%d. %s\n", i+1, n)
	}
	b.WriteString("\n**Forms** (columns; the fixture's `src/conf/…`):\n\n")
	for _, f := range conformanceForms {
		fmt.Fprintf(&b, "- **%s**: %s\n", f.title, f.how)
	}
	b.WriteString("\n**Actions** (rows) and how the test runs them:\n\n")
	for _, a := range conformanceActions {
		fmt.Fprintf(&b, "- **%s**: %s\n", a.title, a.call)
	}
	return b.String()
}
