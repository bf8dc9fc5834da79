package server

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"go.lsp.dev/protocol"

	"github.com/perfls/perfls/analysis/verdict"
	"github.com/perfls/perfls/engine"
	"github.com/perfls/perfls/measure"
)

// Settings are the editor settings of the shared contract
// (initializationOptions, workspace/didChangeConfiguration).
type Settings struct {
	// Alpha is the significance level; 0 = not set (the project's
	// perfls.json, else 0.05).
	Alpha float64
	// Interpretation is "" for auto (the project's choice, else perfls's
	// default), or quick, parametric, nonparametric, rank.
	Interpretation string
	// Semantics is what satisfied means: "" (the project's perfls.json,
	// else shown), shown or classic (verdict.Semantics).
	Semantics string
	// BudgetSeconds limits one measuring command; 0 = no limit.
	BudgetSeconds float64
	// MeasureOnSave re-checks, on save, the formulas of methods changed
	// since their last verdict.
	MeasureOnSave bool
	// JavaHome is the JDK used to compile and fork, and whose classes lint
	// resolves java.* and javax.* against; "" = JAVA_HOME / PATH.
	JavaHome string
	// JVMArgs are extra flags of the forked JVMs.
	JVMArgs []string
	// CPUs pins the forks' measuring threads to these processors ("" =
	// the scheduler's choice; measure.Options.CPUs).
	CPUs string
	// ViolationError shows violated formulas as errors instead of warnings.
	ViolationError bool
	// AllowMeasuring is false in untrusted workspaces: every measuring
	// command and measure-on-save is refused.
	AllowMeasuring bool
	// Remote sends the Check and Measure lenses' measurements (and those
	// of measure-on-save) to the workers of the shared store's job queue,
	// as perfls check --remote; RemoteLabel picks the workers started
	// with that --label ("" = unlabelled ones).
	Remote      bool
	RemoteLabel string
	// Lenses are the code lenses shown above methods, of LensNames;
	// DefaultLenses until the client says otherwise. The oracle's state on
	// an already calibrated method is shown whatever the list.
	Lenses []string
	// InlayHints shows measured figures after method signatures and
	// formula outcomes at the end of annotation lines (inlay_hint.go).
	InlayHints bool
}

// LensNames are the lenses the "lenses" setting can list: measure (run
// the workloads), check (decide the formulas), profile, compare (with the
// base revision) and calibrate (the bounds oracle).
var LensNames = []string{"measure", "check", "profile", "compare", "calibrate"}

// DefaultLenses are the lenses shown by default: the two a method's
// author uses every day, what it costs and whether its formulas hold.
// Five lenses above every method pushed the code down and read as noise;
// profile, compare and calibrate are a setting (or a command) away.
var DefaultLenses = []string{"measure", "check"}

// DefaultSettings are the settings before the client sends any.
func DefaultSettings() Settings {
	return Settings{AllowMeasuring: true, Lenses: DefaultLenses, InlayHints: true}
}

// showsLens tells whether the settings list the lens named name.
func (s Settings) showsLens(name string) bool { return slices.Contains(s.Lenses, name) }

// rawSettings is the wire form; pointers tell a missing key (keep the
// current value) from a zero one.
type rawSettings struct {
	Alpha             *float64  `json:"alpha"`
	Interpretation    *string   `json:"interpretation"`
	Semantics         *string   `json:"semantics"`
	BudgetSeconds     *float64  `json:"budgetSeconds"`
	MeasureOnSave     *bool     `json:"measureOnSave"`
	JavaHome          *string   `json:"javaHome"`
	JVMArgs           *[]string `json:"jvmArgs"`
	CPUs              *string   `json:"cpus"`
	ViolationSeverity *string   `json:"violationSeverity"`
	AllowMeasuring    *bool     `json:"allowMeasuring"`
	Remote            *bool     `json:"remote"`
	RemoteLabel       *string   `json:"remoteLabel"`
	Lenses            *[]string `json:"lenses"`
	InlayHints        *bool     `json:"inlayHints"`
}

// applySettings reads the settings object v (the flat object, or
// {"perfls": {…}}) over cur. Keys that are missing keep their value; keys
// with a bad value keep theirs too and are reported in the error, so one
// typo does not reset the rest.
func applySettings(cur Settings, v any) (Settings, error) {
	if v == nil {
		return cur, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return cur, fmt.Errorf("settings: %w", err)
	}
	var nested struct {
		Perfls json.RawMessage `json:"perfls"`
	}
	if json.Unmarshal(b, &nested) == nil && len(nested.Perfls) > 0 && string(nested.Perfls) != "null" {
		b = nested.Perfls
	}
	if string(b) == "[]" {
		return cur, nil // an empty Lua table: how Neovim encodes "no settings"
	}
	raw, problems, err := decodeSettings(b)
	if err != nil {
		return cur, err
	}
	s := raw.over(cur, &problems)
	if len(problems) > 0 {
		return s, fmt.Errorf("perfls settings: %s (kept the previous values)", strings.Join(problems, "; "))
	}
	return s, nil
}

// decodeSettings decodes the settings object b key by key, so that one value
// of the wrong type does not discard the others; those are the problems.
func decodeSettings(b []byte) (rawSettings, []string, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(b, &fields); err != nil {
		return rawSettings{}, nil, fmt.Errorf("settings: want an object: %w", err)
	}
	var problems []string
	var raw rawSettings
	for key, val := range fields {
		one, _ := json.Marshal(map[string]json.RawMessage{key: val})
		if err := json.Unmarshal(one, &raw); err != nil {
			problems = append(problems, fmt.Sprintf("%s: %s is not a valid value", key, val))
		}
	}
	return raw, problems, nil
}

// over returns cur with the values raw holds; a bad value keeps cur's and
// is added to problems.
func (raw rawSettings) over(cur Settings, problems *[]string) Settings {
	s := cur
	if raw.Alpha != nil {
		if a := *raw.Alpha; a > 0 && a <= 0.5 {
			s.Alpha = a
		} else {
			*problems = append(*problems, fmt.Sprintf("alpha: %g is outside (0, 0.5]", a))
		}
	}
	if raw.Interpretation != nil {
		switch i := strings.TrimSpace(*raw.Interpretation); i {
		case "", "auto":
			s.Interpretation = ""
		case "quick", "parametric", "nonparametric", "rank":
			s.Interpretation = i
		default:
			*problems = append(*problems, fmt.Sprintf("interpretation: %q is not auto, quick, parametric, nonparametric or rank", i))
		}
	}
	if raw.Semantics != nil {
		switch m := strings.TrimSpace(*raw.Semantics); m {
		case "", "auto":
			s.Semantics = ""
		case string(verdict.Shown), string(verdict.Classic):
			s.Semantics = m
		default:
			*problems = append(*problems, fmt.Sprintf("semantics: %q is not auto, shown or classic", m))
		}
	}
	if raw.BudgetSeconds != nil {
		if b := *raw.BudgetSeconds; b >= 0 {
			s.BudgetSeconds = b
		} else {
			*problems = append(*problems, fmt.Sprintf("budgetSeconds: %g is negative", b))
		}
	}
	if raw.MeasureOnSave != nil {
		s.MeasureOnSave = *raw.MeasureOnSave
	}
	if raw.JavaHome != nil {
		s.JavaHome = strings.TrimSpace(*raw.JavaHome)
	}
	if raw.JVMArgs != nil {
		s.JVMArgs = append([]string(nil), (*raw.JVMArgs)...)
	}
	if raw.CPUs != nil {
		if c := strings.TrimSpace(*raw.CPUs); c == "" {
			s.CPUs = ""
		} else if _, err := measure.ParseCPUs(c); err != nil {
			*problems = append(*problems, "cpus: "+err.Error())
		} else {
			s.CPUs = c
		}
	}
	if raw.ViolationSeverity != nil {
		switch strings.ToLower(*raw.ViolationSeverity) {
		case "warning":
			s.ViolationError = false
		case "error":
			s.ViolationError = true
		default:
			*problems = append(*problems, fmt.Sprintf("violationSeverity: %q is not warning or error", *raw.ViolationSeverity))
		}
	}
	if raw.AllowMeasuring != nil {
		s.AllowMeasuring = *raw.AllowMeasuring
	}
	if raw.Remote != nil {
		s.Remote = *raw.Remote
	}
	if raw.InlayHints != nil {
		s.InlayHints = *raw.InlayHints
	}
	if raw.RemoteLabel != nil {
		if l := strings.TrimSpace(*raw.RemoteLabel); engine.ValidLabel(l) == nil {
			s.RemoteLabel = l
		} else {
			*problems = append(*problems, fmt.Sprintf("remoteLabel: %v", engine.ValidLabel(l)))
		}
	}
	if raw.Lenses != nil {
		var ls []string
		for _, l := range *raw.Lenses {
			if l = strings.ToLower(strings.TrimSpace(l)); slices.Contains(LensNames, l) {
				ls = append(ls, l)
			} else {
				*problems = append(*problems, fmt.Sprintf("lenses: %q is not one of %s", l, strings.Join(LensNames, ", ")))
			}
		}
		if len(ls) == len(*raw.Lenses) {
			s.Lenses = ls
		}
	}
	return s
}

// view is what the client said of itself at one moment: its capabilities,
// its workspace folders (in its order) and its settings. A view is never
// written once published: a change publishes a new one, so handlers read
// it without locks.
type view struct {
	caps protocol.ClientCapabilities
	// inlayRefresh: the client honours workspace/inlayHint/refresh (LSP
	// 3.17; protocol's ClientCapabilities predates it).
	inlayRefresh bool
	folders      []string
	cfg          Settings
}

// views holds the current view.
type views struct {
	mu  sync.Mutex
	cur *view
}

func (v *views) get() *view {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.cur
}

// update publishes a copy of the current view changed by change, and
// returns the old view and the new one.
func (v *views) update(change func(*view)) (old, next *view) {
	v.mu.Lock()
	defer v.mu.Unlock()
	old = v.cur
	n := *old
	n.folders = slices.Clone(old.folders)
	change(&n)
	v.cur = &n
	return old, &n
}

func (s *server) settings() Settings { return s.view.get().cfg }

// workDoneProgress tells whether the client shows work-done progress.
func workDoneProgress(caps protocol.ClientCapabilities) bool {
	return caps.Window != nil && caps.Window.WorkDoneProgress
}

// DidChangeConfiguration applies new settings. A changed violation
// severity republishes every open document; withdrawn permission to measure
// cancels nothing already running but refuses what comes next, and lenses
// are refreshed so their actions follow.
func (s *server) DidChangeConfiguration(ctx context.Context, p *protocol.DidChangeConfigurationParams) error {
	var err error
	ov, nv := s.view.update(func(v *view) { v.cfg, err = applySettings(v.cfg, p.Settings) })
	old, next := ov.cfg, nv.cfg
	if err != nil {
		s.showMessage(ctx, protocol.MessageTypeWarning, err.Error())
	}
	if next.ViolationError != old.ViolationError {
		s.republishOpen(ctx)
	}
	if next.JavaHome != old.JavaHome {
		s.recheckOpen(ctx) // against the new JDK's classes
	}
	if next.AllowMeasuring != old.AllowMeasuring {
		s.trust.Set(next.AllowMeasuring, untrustedReason)
		if next.AllowMeasuring {
			// What was read from files only can now come from the build
			// tool. The store was chosen at initialize and stays.
			s.sess.ResolveClasspathsAgain()
			s.logf("measuring allowed: the build tool may now resolve the classpath; a shared store named by perfls.json is connected at the next start")
		}
		s.refreshCodeLenses(ctx)
	} else if !slices.Equal(next.Lenses, old.Lenses) {
		s.refreshCodeLenses(ctx)
	}
	if next.InlayHints != old.InlayHints {
		s.refreshInlayHints(ctx)
	}
	return nil
}

// showMessage tells the user something; failures to do so are logged.
func (s *server) showMessage(ctx context.Context, typ protocol.MessageType, msg string) {
	if err := s.client.ShowMessage(context.WithoutCancel(ctx), &protocol.ShowMessageParams{Type: typ, Message: msg}); err != nil {
		s.logf("showMessage: %v", err)
	}
	s.logf("%s", msg)
}

// republishOpen publishes every open document's diagnostics again, e.g.
// after the violation severity changed.
func (s *server) republishOpen(ctx context.Context) {
	for _, d := range s.sess.Docs() {
		if err := s.publishDiagnostics(ctx, d); err != nil {
			s.logf("publish diagnostics for %s: %v", d.Path, err)
		}
	}
}
