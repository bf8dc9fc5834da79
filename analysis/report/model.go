package report

import (
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/perfls/perfls/analysis/model"
)

// Figure renders a value of a metric's unit: "1.23 µs", "512 B", "0.97".
func Figure(v float64, unit string) string {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return "n/a"
	case unit == "ns":
		return Duration(v)
	case unit == "B":
		return sig3(v) + " B"
	}
	return sig3(v)
}

// DemandText renders one demand: "cpu 1.21 µs (1.19 µs … 1.23 µs)", a
// lower bound below 0 shown as 0 with ClampNote.
func DemandText(d model.Demand) string {
	s := fmt.Sprintf("%s %s", strings.ReplaceAll(string(d.Metric), "_", " "), Figure(d.Mean, d.Unit))
	if !math.IsNaN(d.CI95[0]) {
		s += " (" + Span(d.CI95[0], d.CI95[1], d.Unit) + ")"
	}
	if d.Coarse != "" {
		s += " [coarse]"
	}
	return s
}

// writeDemands writes a measurement's demands per operation, one a line,
// with their 95 % intervals, and the coarse-clock caveats.
func writeDemands(w io.Writer, ds []model.Demand) {
	if len(ds) == 0 {
		return
	}
	fmt.Fprintf(w, "  per op (95%% CI):")
	for i, d := range ds {
		if i > 0 && i%3 == 0 {
			fmt.Fprintf(w, "\n   ")
		} else if i > 0 {
			fmt.Fprintf(w, ";")
		}
		fmt.Fprintf(w, " %s", DemandText(d))
	}
	fmt.Fprintln(w)
	for _, d := range ds {
		if d.Coarse != "" {
			fmt.Fprintf(w, "  %s: %s\n", d.Metric, d.Coarse)
		}
	}
}

// WritePerformanceModel writes an extracted model to w as JSON (indented)
// or YAML (the same keys), and what it says for people to notes.
func WritePerformanceModel(w, notes io.Writer, format string, m *model.Model) error {
	WritePerformanceSummary(notes, m)
	if format != "yaml" {
		return WriteJSON(w, m)
	}
	data, err := MarshalDocument(m)
	if err != nil {
		return err
	}
	// JSON is YAML: read it as a node tree (keeping the key order), then
	// write it in block style.
	var n yaml.Node
	if err := yaml.Unmarshal(data, &n); err != nil {
		return err
	}
	blockStyle(&n)
	enc := yaml.NewEncoder(w)
	enc.SetIndent(2)
	if err := enc.Encode(&n); err != nil {
		return err
	}
	return enc.Close()
}

func blockStyle(n *yaml.Node) {
	n.Style &^= yaml.FlowStyle | yaml.DoubleQuotedStyle
	for _, c := range n.Content {
		blockStyle(c)
	}
}

// WritePerformanceSummary writes what a model says, for people: per operation
// the dependencies ("wall ≈ 0.9·n² + 12 ns, fitted on n in 10 … 10000")
// and the metrics that could not be fitted.
func WritePerformanceSummary(w io.Writer, m *model.Model) {
	for _, op := range m.Operations {
		fmt.Fprintf(w, "%s[%s] over %s:\n", op.Method, op.Workload, op.Parameter)
		for _, d := range op.Dependencies {
			alt := ""
			if len(d.Indistinct) > 0 {
				var names []string
				for _, f := range d.Indistinct {
					names = append(names, f.Model)
				}
				alt = " (the data cannot tell it from " + strings.Join(names, ", ") + ")"
			}
			fmt.Fprintf(w, "  %-11s %s%s%s, fitted on %s in %g … %g\n", d.Metric, d.Text, alt, departure(d), op.Parameter, d.Range[0], d.Range[1])
		}
		for _, d := range op.CalleeDependencies {
			fmt.Fprintf(w, "  callee %s: cpu %s\n", d.Callee, d.Text)
		}
		for _, d := range op.CallDependencies {
			fmt.Fprintf(w, "  calls of %s %s\n", d.Callee, d.Text)
		}
		if n := len(op.Points); n > 0 && len(op.Points[n-1].Callees) > 0 {
			last := op.Points[n-1]
			fmt.Fprintf(w, "  callees at %s = %g (share of cpu ± standard error):\n", op.Parameter, last.N)
			for _, c := range last.Callees {
				flag := ""
				if c.Unreliable != "" {
					flag = " [unreliable: " + c.Unreliable + "]"
				}
				if c.Calls > 0 {
					flag = fmt.Sprintf(", %s calls%s", sig3(c.Calls), flag)
				}
				fmt.Fprintf(w, "    %-40s %5.1f %% ± %.1f  %s ± %s%s\n", c.Method, 100*c.Share, 100*c.ShareSE, Figure(c.CPU, "ns"), Figure(c.CPUSE, "ns"), flag)
			}
		}
		for _, p := range op.Problems {
			fmt.Fprintf(w, "  not fitted: %s\n", p)
		}
	}
	for _, n := range m.Notices {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	e := m.Environment
	fmt.Fprintf(w, "environment: %s; %s %s (%s)\n", e.Machine, e.VMName, e.JavaVersion, e.JavaVendor)
}

// Predicted is the JSON document of perfls predict.
type Predicted struct {
	Method      string             `json:"method"`
	Workload    string             `json:"workload"`
	Parameter   string             `json:"parameter"`
	Predictions []model.Prediction `json:"predictions"`
}

// WritePredictions writes predictions as JSON or text, one metric a line:
// "wall  12.3 µs (11.9 µs … 12.8 µs; a measurement 10.9 µs … 13.9 µs), n^2
// [extrapolated]".
func WritePredictions(w io.Writer, format string, p *Predicted) error {
	ps := p.Predictions
	if format == "json" {
		return writeJSONLine(w, p)
	}
	if len(ps) == 0 {
		fmt.Fprintf(w, "%s: the model has no fitted dependency\n", p.Method)
		return nil
	}
	fmt.Fprintf(w, "%s[%s] at %s = %g (95 %%: the curve's interval; where a measurement is expected):\n", p.Method, p.Workload, p.Parameter, ps[0].N)
	for _, p := range ps {
		flag := ""
		if p.Extrapolated {
			flag = " [extrapolated: outside the fitted range]"
		}
		fmt.Fprintf(w, "  %-11s %s (%s … %s; a measurement %s … %s), %s%s\n", p.Metric, Figure(p.Value, p.Unit), Figure(p.CI95[0], p.Unit), Figure(p.CI95[1], p.Unit),
			Figure(p.PI95[0], p.Unit), Figure(p.PI95[1], p.Unit), p.Model, flag)
	}
	return nil
}

// CalleeLines are an operation's callees for people, one a line, each with
// its fitted cpu demand and its fitted invocation count where known:
// "pairs(): cpu ≈ 0.9·n² ns, 94 % of compute() at n = 800; calls = 1 per
// op, exact at all 4 values".
func CalleeLines(op model.Operation) []string {
	texts := map[string][]string{}
	var order []string
	add := func(callee, text string) {
		if texts[callee] == nil {
			order = append(order, callee)
		}
		texts[callee] = append(texts[callee], text)
	}
	for _, d := range op.CalleeDependencies {
		add(d.Callee, "cpu "+d.Text)
	}
	for _, d := range op.CallDependencies {
		add(d.Callee, "calls "+strings.Replace(d.Text, " calls per op", " per op", 1))
	}
	var out []string
	for _, c := range order {
		out = append(out, model.ShortName(c)+": "+strings.Join(texts[c], "; "))
	}
	return out
}

// departure says how far the measured values depart from a fitted curve
// (the square root of its dispersion: a relative standard deviation), when
// that is at least 1 %: how far to trust the curve between the values.
func departure(d model.Dependency) string {
	sd := math.Sqrt(d.Best.Disp)
	if !(sd >= 0.01) {
		return ""
	}
	return fmt.Sprintf(" (values depart from it by %.0f %%, s.d.)", 100*sd)
}

// ModelMarkdown renders a stored model's operation for the hover: its
// demands' and callees' dependencies, the fitted range, and the figures
// at ten times the top of the range, flagged as extrapolated.
func ModelMarkdown(op model.Operation, created time.Time) string {
	var b strings.Builder
	var lo, hi float64
	if n := len(op.Points); n > 0 {
		lo, hi = op.Points[0].N, op.Points[n-1].N
	}
	fmt.Fprintf(&b, "**Model** on `%s`, fitted on %s in %g … %g (extracted %s; docs/models.md)\n\n", op.Workload, op.Parameter, lo, hi, created.Local().Format("2006-01-02 15:04"))
	for _, d := range op.Dependencies {
		if d.Metric == model.Wall || d.Metric == model.CPU || d.Metric == model.Alloc {
			fmt.Fprintf(&b, "- %s %s%s\n", d.Metric, d.Text, departure(d))
		}
	}
	for _, l := range CalleeLines(op) {
		fmt.Fprintf(&b, "- %s\n", l)
	}
	if hi > 0 {
		at := 10 * hi
		var parts []string
		for _, d := range append(append([]model.Dependency{}, op.Dependencies...), op.CalleeDependencies...) {
			if d.Metric != model.Wall && d.Callee == "" {
				continue
			}
			p := d.Predict(at)
			who := string(d.Metric)
			if d.Callee != "" {
				who = model.ShortName(d.Callee) + " cpu"
			}
			parts = append(parts, fmt.Sprintf("%s ≈ %s", who, Figure(p.Value, p.Unit)))
		}
		if len(parts) > 0 {
			fmt.Fprintf(&b, "\nAt %s = %g (**extrapolated**, outside the fitted range): %s.\n", op.Parameter, at, strings.Join(parts, ", "))
		}
	}
	return b.String()
}
