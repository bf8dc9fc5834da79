package main

import (
	"encoding/json"
	"strings"
	"testing"
)

const (
	jmhData    = "../../analysis/dataset/testdata/jmh.json"
	perflsData = "../../analysis/dataset/testdata/perfls.json"
)

type evalJSON struct {
	Result    string `json:"result"`
	Instances []struct {
		Instance    string   `json:"instance"`
		Result      string   `json:"result"`
		PValue      *float64 `json:"p_value"`
		Comparisons []struct {
			Outcome  string `json:"outcome"`
			PValue   float64
			Evidence struct {
				Interpretation string  `json:"interpretation"`
				Test           string  `json:"test"`
				DF             float64 `json:"df"`
				Seed           *uint64 `json:"seed"`
				Resamples      int     `json:"resamples"`
				Left           struct {
					MeanNs float64 `json:"mean_ns_per_op"`
					Forks  int     `json:"forks"`
					PerF   int     `json:"samples_per_fork"`
				} `json:"left"`
			} `json:"evidence"`
		} `json:"comparisons"`
	} `json:"instances"`
}

func evalJSONOut(t *testing.T, args ...string) (int, evalJSON, string) {
	t.Helper()
	code, out, errs := runCLI(t, append([]string{"evaluate", "--format", "json"}, args...)...)
	var r evalJSON
	if code != exitUsage {
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatalf("output is not JSON: %v\n%s\nstderr: %s", err, out, errs)
		}
		checkJSON(t, "evaluate", out)
	}
	return code, r, errs
}

func TestEvaluateJMH(t *testing.T) {
	f := `for n in {100, 1000} org.sample.Sorts#quickSort[jmh](n, "random") <= org.sample.Sorts#insertionSort[jmh](n, "random")`
	code, r, errs := evalJSONOut(t, "--data", jmhData, "--formula", f)
	if code != exitOK || r.Result != "satisfied" || len(r.Instances) != 2 {
		t.Fatalf("exit %d, %+v; stderr %s", code, r, errs)
	}
	in := r.Instances[1]
	if in.Instance != "n=1000" || in.Result != "satisfied" || in.PValue == nil || len(in.Comparisons) != 1 {
		t.Errorf("instance %+v", in)
	}
	ev := in.Comparisons[0].Evidence
	// The default is parametric at any fork count; quickSort at 1000 ≈ 50 µs/op.
	if ev.Interpretation != "parametric" || !strings.Contains(ev.Test, "one-sided") || ev.Left.Forks != 3 || ev.Left.PerF != 5 || ev.Left.MeanNs < 40e3 || ev.Left.MeanNs > 60e3 || ev.DF <= 0 {
		t.Errorf("evidence %+v", ev)
	}

	code, r, _ = evalJSONOut(t, "--data", jmhData, "--formula", f, "--interpretation", "parametric")
	if ev := r.Instances[0].Comparisons[0].Evidence; code != exitOK || ev.Interpretation != "parametric" || ev.DF <= 0 {
		t.Errorf("parametric: exit %d, evidence %+v", code, ev)
	}

	// The reverse is violated: exit 1, also as text.
	rev := `for n in {100, 1000} org.sample.Sorts#insertionSort[jmh](n, "random") <= org.sample.Sorts#quickSort[jmh](n, "random")`
	code, out, _ := runCLI(t, "evaluate", "--data", jmhData, "--formula", rev)
	if code != exitViolated || !strings.Contains(out, "violated  [n=100]") || !strings.HasSuffix(strings.TrimSpace(out), "violated (α = 0.05)") {
		t.Errorf("reverse: exit %d\n%s", code, out)
	}

	// Throughput scores are inverted: treeGet (10,000 ops/ms = 100 ns/op) is
	// slower than hashGet (20 ns/op).
	code, r, _ = evalJSONOut(t, "--data", jmhData, "--formula", "org.sample.Maps#hashGet[jmh]() < org.sample.Maps#treeGet[jmh]()", "--interpretation", "rank")
	if code != exitOK || r.Result != "satisfied" || r.Instances[0].Comparisons[0].Evidence.Interpretation != "rank" {
		t.Errorf("throughput: exit %d %+v", code, r)
	}
}

func TestEvaluatePerflsJSONNonParametric(t *testing.T) {
	f := "quickstart.Search#binarySearch[quickstart.Search#lookups](10000) <= 0.1 * quickstart.Search#linearSearch[quickstart.Search#lookups](10000)"
	code, r, errs := evalJSONOut(t, "--data", perflsData, "--formula", f, "--interpretation", "nonparametric", "--seed", "9", "--resamples", "2000")
	if code != exitOK || r.Result != "satisfied" {
		t.Fatalf("exit %d %+v\n%s", code, r, errs)
	}
	ev := r.Instances[0].Comparisons[0].Evidence
	if ev.Seed == nil || *ev.Seed != 9 || ev.Resamples != 2000 || !strings.Contains(ev.Test, "bootstrap") {
		t.Errorf("evidence %+v", ev)
	}
	// Same seed, same answer.
	_, r2, _ := evalJSONOut(t, "--data", perflsData, "--formula", f, "--interpretation", "nonparametric", "--seed", "9", "--resamples", "2000")
	if *r2.Instances[0].PValue != *r.Instances[0].PValue {
		t.Errorf("bootstrap not deterministic: %g vs %g", *r2.Instances[0].PValue, *r.Instances[0].PValue)
	}
	// `==` between methods 75× apart is violated (two-sided at 2α).
	code, r, _ = evalJSONOut(t, "--data", perflsData, "--formula", "quickstart.Search#binarySearch(int[], int)[quickstart.Search#lookups](10000) == quickstart.Search#linearSearch[quickstart.Search#lookups](10000)")
	if code != exitViolated || r.Result != "violated" {
		t.Errorf("==: exit %d %+v", code, r)
	}
}

func TestEvaluateErrors(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--data", jmhData}, "needs --data FILE and --formula F"},
		{[]string{"--data", jmhData, "--formula", "org.sample.Sorts#quickSort[jmh](100) <= org.sample.Sorts#insertionSort[jmh](100)"},
			"no benchmark org.sample.Sorts.quickSort with params (100) in " + jmhData + "; available: org.sample.Sorts#quickSort[jmh](100, random); org.sample.Sorts#quickSort[jmh](1000, random)"},
		{[]string{"--data", jmhData, "--formula", "a.B#c[jmh]() <="}, "formula:"},
		{[]string{"--data", jmhData, "--formula", "SELF[jmh]() <= a.B#c[jmh]()"}, "name the method"},
		{[]string{"--data", "does-not-exist.json", "--formula", "a.B#c() <= a.B#d()"}, "does-not-exist.json"},
		{[]string{"--data", jmhData, "--formula", "a.B#c() <= a.B#d()", "--interpretation", "bayes"}, "unknown interpretation"},
		{[]string{"--data", jmhData, "--formula", "a.B#c() <= a.B#d()", "--alpha", "0.7"}, "outside (0, 0.5]"},
		{[]string{"--data", "evaluate_test.go", "--formula", "a.B#c() <= a.B#d()"}, "not a JSON"},
	}
	for _, c := range cases {
		code, _, errs := runCLI(t, append([]string{"evaluate"}, c.args...)...)
		if code != exitUsage || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, errs, c.want)
		}
	}
}
