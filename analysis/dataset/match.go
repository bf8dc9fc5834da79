package dataset

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Query selects one measurement. Empty Class matches any class (a bare
// method name); nil Params matches any overload; empty Workload fields
// match any workload (JMH or perfls); JMH requires a JMH benchmark.
type Query struct {
	Class, Method                 string
	Params                        []string
	JMH                           bool
	WorkloadClass, WorkloadMethod string
	Args                          []Arg
}

// Arg is one argument value of a formula term.
type Arg struct {
	Text  string  // the value as text (decoded string, or number as written)
	Num   float64 // numeric value when IsNum
	IsNum bool
}

func (q Query) String() string {
	var b strings.Builder
	if q.Class != "" {
		b.WriteString(q.Class + ".")
	}
	b.WriteString(q.Method)
	if q.Params != nil {
		b.WriteString("(" + strings.Join(q.Params, ", ") + ")")
	}
	return b.String()
}

func (a Arg) matches(s string) bool {
	if a.IsNum {
		v, err := strconv.ParseFloat(s, 64)
		return err == nil && v == a.Num
	}
	return a.Text == s
}

func sameParams(want, got []string) bool {
	if want == nil || got == nil {
		return true
	}
	if len(want) != len(got) {
		return false
	}
	for i := range want {
		// Tolerate simple names against qualified ones: String vs java.lang.String.
		w, g := want[i], got[i]
		if w != g && !strings.HasSuffix(g, "."+w) && !strings.HasSuffix(w, "."+g) {
			return false
		}
	}
	return true
}

// Find returns the one measurement q names, or an error that lists what
// the data hold. source names the input in messages.
func Find(ms []Measurement, q Query, source string) (Measurement, error) {
	var sameMethod, hits []Measurement
	for _, m := range ms {
		if m.Method != q.Method || (q.Class != "" && m.Class != q.Class) || !sameParams(q.Params, m.Params) {
			continue
		}
		if q.JMH && m.Format != "jmh" || !q.JMH && q.WorkloadMethod != "" && m.Format == "jmh" {
			continue
		}
		if !q.JMH && q.WorkloadMethod != "" {
			if m.WorkloadMethod != q.WorkloadMethod || (q.WorkloadClass != "" && m.WorkloadClass != q.WorkloadClass) {
				continue
			}
		}
		sameMethod = append(sameMethod, m)
		if len(m.Args) != len(q.Args) {
			continue
		}
		ok := true
		for i, a := range q.Args {
			if !a.matches(m.Args[i]) {
				ok = false
				break
			}
		}
		if ok {
			hits = append(hits, m)
		}
	}
	args := make([]string, len(q.Args))
	for i, a := range q.Args {
		args[i] = a.Text
	}
	what := "benchmark"
	if !q.JMH {
		what = "measurement of"
	}
	switch len(hits) {
	case 1:
		return hits[0], nil
	case 0:
		pool := sameMethod
		msg := fmt.Sprintf("no %s %s with params (%s) in %s", what, q, strings.Join(args, ", "), source)
		if len(pool) == 0 {
			pool = ms
			msg = fmt.Sprintf("no %s %s in %s", what, q, source)
		}
		return Measurement{}, fmt.Errorf("%s; available: %s", msg, available(pool))
	}
	return Measurement{}, fmt.Errorf("%s %s with params (%s) is ambiguous in %s: %s", what, q, strings.Join(args, ", "), source, available(hits))
}

func available(ms []Measurement) string {
	names := make([]string, 0, len(ms))
	seen := map[string]bool{}
	for _, m := range ms {
		n := m.Name()
		if !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
	}
	sort.Strings(names)
	const limit = 20
	if len(names) > limit {
		return strings.Join(names[:limit], "; ") + fmt.Sprintf("; … %d more", len(names)-limit)
	}
	if len(names) == 0 {
		return "nothing"
	}
	return strings.Join(names, "; ")
}
