package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
)

// suiteFormulas is the size of aaSuite's suite: formula i compares method
// m_i with m_{i+1}, all byte-identical, so every violation is false.
const suiteFormulas = 20

// aaSuiteProject is a class of suiteFormulas+1 identical methods on the
// dependent multiply-add chain of aaProject, each but the last with a
// formula `SELF <= next`.
func aaSuiteProject() string {
	var b strings.Builder
	b.WriteString("package p;\n\nimport dev.perfls.SPL;\nimport java.util.Collections;\n\npublic class S {\n")
	for i := 0; i <= suiteFormulas; i++ {
		if i < suiteFormulas {
			fmt.Fprintf(&b, "    @SPL(\"SELF[args](1000) <= p.S#m%d[args](1000)\")\n", i+1)
		}
		fmt.Fprintf(&b, `    public static long m%d(long seed, int n) {
        long x = seed;
        for (int i = 0; i < n; i++) {
            x = x * 6364136223846793005L + 1442695040888963407L;
        }
        return x;
    }

`, i)
	}
	b.WriteString("    public static Iterable<Object[]> args(int n) {\n        return Collections.singletonList(new Object[] {System.nanoTime(), n});\n    }\n}\n")
	return b.String()
}

// aaSuite runs perfls check --fresh on the suite (3 forks, one look) runs
// times, and decides each run's measurements twice: as one family (Holm,
// the default) and each formula alone (--family none, from the cache: the
// same data). It prints how many runs had any false violation each way:
// the family-wise false-alarm rate, which Holm keeps within α.
func aaSuite(ctx context.Context, runs int) error {
	tmp, bin, proj, err := javaProject(ctx, "perfls-bench-aasuite-", "S.java", aaSuiteProject())
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	fmt.Printf("perfls check --fresh on %d A/A formulas over %d identical ~1.4 µs methods (3 forks, one look), %d runs; each run decided with --family holm and --family none\n\n",
		suiteFormulas, suiteFormulas+1, runs)
	anyFalse := map[string]int{}
	falses := map[string]int{}
	start := time.Now()
	for i := 0; i < runs; i++ {
		for _, family := range []string{"holm", "none"} {
			n, err := suiteViolations(ctx, bin, proj, family, family == "holm")
			if err != nil {
				return err
			}
			falses[family] += n
			if n > 0 {
				anyFalse[family]++
			}
		}
		fmt.Printf("run %d: runs with a false violation so far: holm %d, one by one %d (load %s)\n", i+1, anyFalse["holm"], anyFalse["none"], load1())
	}
	fmt.Printf("\n| family | runs with any false violation | false violations in all |\n|---|---|---|\n")
	for _, f := range []string{"holm", "none"} {
		fmt.Printf("| %s | %d/%d | %d of %d |\n", f, anyFalse[f], runs, falses[f], runs*suiteFormulas)
	}
	fmt.Printf("\n%.0f s per run\n", time.Since(start).Seconds()/float64(runs))
	return nil
}

// suiteViolations runs one check (fresh: measured anew) and counts its
// violated instances.
func suiteViolations(ctx context.Context, bin, proj, family string, fresh bool) (int, error) {
	args := []string{"check", "--format", "json", "--forks", "3", "--max-forks", "3", "--family", family}
	if fresh {
		args = append(args, "--fresh")
	}
	out, err := exec.CommandContext(ctx, bin, append(args, proj)...).Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() > 1 {
			return 0, fmt.Errorf("perfls check: %v\n%s", err, strings.TrimSpace(string(out)))
		}
	}
	var doc struct {
		Summary struct {
			Violated int `json:"violated"`
		} `json:"summary"`
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		return 0, fmt.Errorf("perfls check output: %w", err)
	}
	return doc.Summary.Violated, nil
}
