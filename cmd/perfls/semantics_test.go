package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// flat strips Markdown emphasis and code marks and folds white space, so
// that a sentence wrapped differently in docs and help still matches.
func flat(s string) string {
	s = strings.NewReplacer("`", "", "**", "", "*", "").Replace(s)
	return strings.Join(strings.Fields(s), " ")
}

// docSentence is the sentence of docs/statistics.md that starts with start.
func docSentence(t *testing.T, start string) string {
	t.Helper()
	raw, err := os.ReadFile("../../docs/statistics.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := flat(string(raw))
	i := strings.Index(doc, start)
	if i < 0 {
		t.Fatalf("docs/statistics.md has no sentence starting %q", start)
	}
	end := regexp.MustCompile(`\.( |$)`).FindStringIndex(doc[i:])
	if end == nil {
		t.Fatalf("docs/statistics.md: sentence %q does not end", start)
	}
	return doc[i : i+end[0]+1]
}

// The defaults perfls check -h and perfls evaluate -h state are the
// documented ones, word for word: the semantics of satisfied and the
// interpretation.
func TestHelpStatesTheDocumentedDefaults(t *testing.T) {
	sentences := []string{
		docSentence(t, "By default a relation is satisfied only when"),
		docSentence(t, "The default interpretation is"),
	}
	for _, cmd := range []string{"check", "evaluate"} {
		code, out, errs := runCLI(t, cmd, "-h")
		if code != exitOK {
			t.Fatalf("%s -h: exit %d\n%s", cmd, code, errs)
		}
		help := flat(out)
		for _, s := range sentences {
			if !strings.Contains(help, s) {
				t.Errorf("perfls %s -h does not say, as docs/statistics.md does:\n  %s\nhelp:\n%s", cmd, s, out)
			}
		}
		if strings.Contains(help, "quick with 5% tolerance") || strings.Contains(help, "else quick") {
			t.Errorf("perfls %s -h still describes the old default:\n%s", cmd, out)
		}
		for _, flag := range []string{"--semantics", "--interpretation"} {
			if !strings.Contains(out, flag) {
				t.Errorf("perfls %s -h has no %s", cmd, flag)
			}
		}
	}
}

// oneForkJMH writes JMH results with one fork per benchmark: a.B.slow's
// samples 3 % above a.B.fast's on average, too noisy to reject `<=` or
// to show it within 5 % (analysis/verdict's semantics tests, in µs).
func oneForkJMH(t *testing.T) string {
	t.Helper()
	bench := func(name string, raw []float64) string {
		b, _ := json.Marshal(raw)
		return fmt.Sprintf(`{"benchmark": %q, "mode": "avgt", "forks": 1, "params": {},
			"primaryMetric": {"score": 1, "scoreUnit": "us/op", "rawData": [%s]}}`, name, b)
	}
	path := filepath.Join(t.TempDir(), "jmh.json")
	data := "[" + bench("a.B.slow", []float64{95, 110, 100, 108, 102}) + "," + bench("a.B.fast", []float64{97, 103, 100, 104, 96}) + "]"
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// The same one-fork data: undecided by default, satisfied under
// --semantics classic (the Welch test does not reject, seed 004 Def. 8),
// and the output says which semantics decided.
func TestEvaluateSemantics(t *testing.T) {
	data := oneForkJMH(t)
	f := "a.B#slow[jmh]() <= a.B#fast[jmh]()"
	type doc struct {
		Result    string `json:"result"`
		Semantics string `json:"semantics"`
		Instances []struct {
			Comparisons []struct {
				Evidence struct {
					Semantics string `json:"semantics"`
				} `json:"evidence"`
			} `json:"comparisons"`
		} `json:"instances"`
	}
	decide := func(args ...string) doc {
		t.Helper()
		code, out, errs := runCLI(t, append([]string{"evaluate", "--format", "json", "--data", data, "--formula", f, "--interpretation", "quick"}, args...)...)
		var d doc
		if code != exitOK || json.Unmarshal([]byte(out), &d) != nil || len(d.Instances) != 1 {
			t.Fatalf("%v: exit %d\n%s\n%s", args, code, out, errs)
		}
		return d
	}
	if d := decide(); d.Result != "undecided" || d.Semantics != "shown" || d.Instances[0].Comparisons[0].Evidence.Semantics != "shown" {
		t.Errorf("default: %+v", d)
	}
	if d := decide("--semantics", "classic"); d.Result != "satisfied" || d.Semantics != "classic" || d.Instances[0].Comparisons[0].Evidence.Semantics != "classic" {
		t.Errorf("classic: %+v", d)
	}
	code, out, _ := runCLI(t, "evaluate", "--data", data, "--formula", f, "--interpretation", "quick", "--semantics", "classic")
	if code != exitOK || !strings.Contains(out, "[classic]") || !strings.Contains(out, "satisfied (α = 0.05, classic semantics") {
		t.Errorf("classic text: exit %d\n%s", code, out)
	}
	if code, _, errs := runCLI(t, "evaluate", "--data", data, "--formula", f, "--semantics", "lenient"); code != exitUsage || !strings.Contains(errs, "classic") {
		t.Errorf("--semantics lenient: exit %d, %s", code, errs)
	}
}
