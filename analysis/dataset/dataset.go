// Package dataset reads recorded benchmark results: JMH's JSON result format
// and perfls's own measurement JSON. It is pure: bytes in, values out.
package dataset

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// Measurement is one measured (method, workload, arguments) with its
// per-fork samples in nanoseconds per operation.
type Measurement struct {
	Format string // "jmh" or "perfls"
	Class  string // binary class name, e.g. "pkg.Class"
	Method string
	Params []string // method parameter types when recorded; nil otherwise
	// Workload: "jmh" for JMH benchmarks; otherwise the generator's class
	// and method (GenParams as recorded, possibly nil).
	WorkloadClass, WorkloadMethod string
	GenParams                     []string
	// Args are the arguments as text: JMH @Param values in the order the JSON
	// lists them, or perfls generator arguments (numbers as written).
	Args []string
	Runs [][]float64 // Runs[i]: ns/op samples of fork i
}

// Name renders the measurement as a formula term would name it:
// pkg.Class#m[jmh](100, foo).
func (m Measurement) Name() string {
	w := "jmh"
	if m.Format != "jmh" {
		w = m.WorkloadClass + "#" + m.WorkloadMethod
	}
	return fmt.Sprintf("%s#%s[%s](%s)", m.Class, m.Method, w, strings.Join(m.Args, ", "))
}

// Parse reads a JMH result array, or perfls measurement JSON (one object
// or an array of objects). Errors in an entry name the line it starts on;
// a time that is negative or not finite is one.
func Parse(data []byte) ([]Measurement, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, errors.New("empty input")
	}
	// One JSON value (an object or an array of objects), or a stream of
	// them one after another, as `perfls measure --phase both` and JSON
	// Lines files write.
	var items []item
	dec := json.NewDecoder(bytes.NewReader(data))
	for {
		var doc json.RawMessage
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("not a JSON object or array (or a stream of them): %w", err)
		}
		start := dec.InputOffset() - int64(len(doc))
		switch doc[0] {
		case '{':
			items = append(items, item{doc, start})
		case '[':
			elems, err := elements(doc, start)
			if err != nil {
				return nil, fmt.Errorf("not a JSON array of objects: %w", err)
			}
			items = append(items, elems...)
		default:
			return nil, fmt.Errorf("not a JSON object or array: starts with %q", doc[0])
		}
	}
	var out []Measurement
	for i, it := range items {
		var probe struct {
			Benchmark *string `json:"benchmark"`
			Method    *string `json:"method"`
		}
		m, err := Measurement{}, json.Unmarshal(it.raw, &probe)
		switch {
		case err != nil:
		case probe.Benchmark != nil:
			m, err = parseJMH(it.raw)
		case probe.Method != nil:
			m, err = parsePerfls(it.raw)
		default:
			err = errors.New(`neither a JMH result (no "benchmark") nor a perfls measurement (no "method")`)
		}
		if err != nil {
			return nil, fmt.Errorf("line %d, entry %d: %w", 1+bytes.Count(data[:it.offset], []byte("\n")), i, err)
		}
		out = append(out, m)
	}
	return out, nil
}

// item is one entry of the input and where it starts (a byte offset).
type item struct {
	raw    json.RawMessage
	offset int64
}

// elements are the values of the JSON array doc, which starts at offset.
func elements(doc json.RawMessage, offset int64) ([]item, error) {
	dec := json.NewDecoder(bytes.NewReader(doc))
	if _, err := dec.Token(); err != nil { // [
		return nil, err
	}
	var out []item
	for dec.More() {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, err
		}
		out = append(out, item{raw, offset + dec.InputOffset() - int64(len(raw))})
	}
	return out, nil
}

// checkTime refuses a time per operation that cannot be one.
func checkTime(fork, sample int, ns float64) error {
	if ns < 0 || math.IsNaN(ns) || math.IsInf(ns, 0) {
		return fmt.Errorf("fork %d, sample %d: %g ns/op is not a time per operation (negative or not finite): fix or drop the entry", fork+1, sample+1, ns)
	}
	return nil
}

type jmhResult struct {
	Benchmark     string          `json:"benchmark"`
	Mode          string          `json:"mode"`
	Params        json.RawMessage `json:"params"`
	PrimaryMetric struct {
		ScoreUnit string      `json:"scoreUnit"`
		RawData   [][]float64 `json:"rawData"`
	} `json:"primaryMetric"`
}

func parseJMH(b []byte) (Measurement, error) {
	var r jmhResult
	if err := json.Unmarshal(b, &r); err != nil {
		return Measurement{}, fmt.Errorf("JMH result: %w", err)
	}
	m := Measurement{Format: "jmh", WorkloadMethod: "jmh"}
	dot := strings.LastIndexByte(r.Benchmark, '.')
	if dot <= 0 || dot == len(r.Benchmark)-1 {
		return m, fmt.Errorf("JMH benchmark %q is not pkg.Class.method", r.Benchmark)
	}
	m.Class, m.Method = r.Benchmark[:dot], r.Benchmark[dot+1:]
	args, err := orderedStrings(r.Params)
	if err != nil {
		return m, fmt.Errorf("%s: params: %w", r.Benchmark, err)
	}
	m.Args = args
	conv, err := jmhToNs(r.Mode, r.PrimaryMetric.ScoreUnit)
	if err != nil {
		return m, fmt.Errorf("%s: %w", r.Benchmark, err)
	}
	if len(r.PrimaryMetric.RawData) == 0 {
		return m, fmt.Errorf("%s: no primaryMetric.rawData (mode %q); perfls needs per-fork iteration scores", r.Benchmark, r.Mode)
	}
	for i, fork := range r.PrimaryMetric.RawData {
		run := make([]float64, 0, len(fork))
		for j, v := range fork {
			ns := conv(v)
			if v < 0 || math.IsNaN(ns) || math.IsInf(ns, 0) {
				return m, fmt.Errorf("%s: fork %d, iteration %d: score %g %s is not a time per operation (negative, or a throughput of 0): fix or drop the entry", r.Benchmark, i+1, j+1, v, r.PrimaryMetric.ScoreUnit)
			}
			run = append(run, ns)
		}
		m.Runs = append(m.Runs, run)
	}
	return m, nil
}

// jmhToNs converts a JMH score to ns/op: time-per-op modes scale the unit;
// throughput ("thrpt", ops/time) is inverted.
func jmhToNs(mode, unit string) (func(float64) float64, error) {
	num, den, ok := strings.Cut(unit, "/")
	if !ok {
		return nil, fmt.Errorf("score unit %q is not x/y", unit)
	}
	switch mode {
	case "thrpt":
		if num != "ops" {
			return nil, fmt.Errorf("throughput unit %q: want ops/<time>", unit)
		}
		ns, ok := timeUnitNs(den)
		if !ok {
			return nil, fmt.Errorf("unknown time unit in %q", unit)
		}
		return func(v float64) float64 { return ns / v }, nil
	case "avgt", "ss", "sample":
		if den != "op" {
			return nil, fmt.Errorf("time unit %q: want <time>/op", unit)
		}
		ns, ok := timeUnitNs(num)
		if !ok {
			return nil, fmt.Errorf("unknown time unit in %q", unit)
		}
		return func(v float64) float64 { return ns * v }, nil
	}
	return nil, fmt.Errorf("unknown JMH mode %q (want avgt, thrpt, ss or sample)", mode)
}

func timeUnitNs(u string) (float64, bool) {
	switch u {
	case "ns":
		return 1, true
	case "us", "µs":
		return 1e3, true
	case "ms":
		return 1e6, true
	case "s":
		return 1e9, true
	case "min":
		return 60e9, true
	}
	return 0, false
}

// orderedStrings reads a JSON object's values as text, in document order.
func orderedStrings(raw json.RawMessage) ([]string, error) {
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, errors.New("not an object")
	}
	var out []string
	for dec.More() {
		if _, err := dec.Token(); err != nil { // key
			return nil, err
		}
		var v any
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		s, err := valueText(v)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

func valueText(v any) (string, error) {
	switch v := v.(type) {
	case string:
		return v, nil
	case json.Number:
		return v.String(), nil
	case bool:
		return strconv.FormatBool(v), nil
	}
	return "", fmt.Errorf("value %v is not a string or number", v)
}

type perflsResult struct {
	Method   string `json:"method"`
	Workload string `json:"workload"`
	Args     []any  `json:"args"`
	Forks    []struct {
		NsPerOp []float64 `json:"ns_per_op"`
	} `json:"forks"`
}

func parsePerfls(b []byte) (Measurement, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var r perflsResult
	if err := dec.Decode(&r); err != nil {
		return Measurement{}, fmt.Errorf("perfls measurement: %w", err)
	}
	m := Measurement{Format: "perfls"}
	var err error
	if m.Class, m.Method, m.Params, err = splitMethod(r.Method); err != nil {
		return m, fmt.Errorf("method: %w", err)
	}
	if r.Workload != "" {
		if m.WorkloadClass, m.WorkloadMethod, m.GenParams, err = splitMethod(r.Workload); err != nil {
			return m, fmt.Errorf("%s: workload: %w", r.Method, err)
		}
	}
	for _, a := range r.Args {
		s, err := valueText(a)
		if err != nil {
			return m, fmt.Errorf("%s: args: %w", r.Method, err)
		}
		m.Args = append(m.Args, s)
	}
	if len(r.Forks) == 0 {
		return m, fmt.Errorf("%s: no forks", r.Method)
	}
	for i, f := range r.Forks {
		for j, ns := range f.NsPerOp {
			if err := checkTime(i, j, ns); err != nil {
				return m, fmt.Errorf("%s: %w", r.Method, err)
			}
		}
		m.Runs = append(m.Runs, f.NsPerOp)
	}
	return m, nil
}

// splitMethod reads "pkg.Class#m(int[], int)" or "pkg.Class#m".
func splitMethod(s string) (class, method string, params []string, err error) {
	class, rest, ok := strings.Cut(s, "#")
	if !ok || class == "" || rest == "" {
		return "", "", nil, fmt.Errorf("%q is not pkg.Class#method(types)", s)
	}
	method = rest
	if i := strings.IndexByte(rest, '('); i >= 0 {
		if !strings.HasSuffix(rest, ")") {
			return "", "", nil, fmt.Errorf("%q: unclosed parameter list", s)
		}
		method = rest[:i]
		params = []string{}
		if in := strings.TrimSpace(rest[i+1 : len(rest)-1]); in != "" {
			for _, p := range strings.Split(in, ",") {
				params = append(params, strings.TrimSpace(p))
			}
		}
	}
	return class, method, params, nil
}
