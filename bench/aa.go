package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// aaProject holds two byte-identical methods and one that does 5 % more
// work, all on the same dependent multiply-add chain (about 1.4 ns a step),
// with one formula each: A/A (`a <= b`) and a +5 % slowdown (`slow <= a`).
const aaProject = `package p;

import dev.perfls.SPL;
import java.util.Collections;

public class W {
    @SPL("SELF[args](1000) <= p.W#b[args](1000)")
    public static long a(long seed, int n) {
        long x = seed;
        for (int i = 0; i < n; i++) {
            x = x * 6364136223846793005L + 1442695040888963407L;
        }
        return x;
    }

    public static long b(long seed, int n) {
        long x = seed;
        for (int i = 0; i < n; i++) {
            x = x * 6364136223846793005L + 1442695040888963407L;
        }
        return x;
    }

    @SPL("SELF[args](1000) <= p.W#a[args](1000)")
    public static long slow(long seed, int n) {
        long x = seed;
        int m = n + n / 20;
        for (int i = 0; i < m; i++) {
            x = x * 6364136223846793005L + 1442695040888963407L;
        }
        return x;
    }

    public static Iterable<Object[]> args(int n) {
        return Collections.singletonList(new Object[] {System.nanoTime(), n});
    }
}
`

// aa runs perfls check as a user does (the built binary, out of process,
// --fresh every time) on aaProject, runs times per setting, and prints how
// often each formula came out violated, satisfied or undecided: the A/A
// false-alarm rate and the power against +5 %, per fork count, with one
// look (--max-forks = --forks) and with forks added (the default), or
// only one of the two (looks).
func aa(ctx context.Context, runs int, forkCounts []int, looks string) error {
	factors := map[string][]int{"one": {1}, "added": {3}, "both": {1, 3}}[looks]
	if factors == nil {
		return fmt.Errorf("-looks %q: want one, added or both", looks)
	}
	tmp, bin, proj, err := javaProject(ctx, "perfls-bench-aa-", "W.java", aaProject)
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	fmt.Printf("perfls check --fresh on two identical ~1.4 µs methods (A/A) and a +5 %% method, %d runs per row\n\n", runs)
	fmt.Println("| forks | max forks | A/A violated | A/A satisfied | A/A undecided | +5 % violated | +5 % satisfied | +5 % undecided | s per check |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|")
	for _, forks := range forkCounts {
		for _, factor := range factors {
			maxForks := factor * forks
			counts := map[string]map[string]int{"a": {}, "slow": {}}
			start := time.Now()
			for i := 0; i < runs; i++ {
				got, err := aaCheck(ctx, bin, proj, forks, maxForks)
				if err != nil {
					return err
				}
				for m, o := range got {
					counts[m][o]++
				}
			}
			per := time.Since(start).Seconds() / float64(runs)
			share := func(m, o string) string { return fmt.Sprintf("%d/%d", counts[m][o], runs) }
			fmt.Printf("| %d | %d | %s | %s | %s | %s | %s | %s | %.1f |\n", forks, maxForks,
				share("a", "violated"), share("a", "satisfied"), share("a", "undecided"),
				share("slow", "violated"), share("slow", "satisfied"), share("slow", "undecided"), per)
		}
	}
	return nil
}

// aaCheck runs one check and returns the outcome per annotated method.
func aaCheck(ctx context.Context, bin, proj string, forks, maxForks int) (map[string]string, error) {
	cmd := exec.CommandContext(ctx, bin, "check", "--fresh", "--format", "json",
		"--forks", strconv.Itoa(forks), "--max-forks", strconv.Itoa(maxForks), proj)
	out, err := cmd.Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() > 1 {
			return nil, fmt.Errorf("perfls check: %v\n%s", err, strings.TrimSpace(string(out)))
		}
	}
	var doc struct {
		Methods []struct {
			Method    string `json:"method"`
			Instances []struct {
				Outcome string `json:"outcome"`
			} `json:"instances"`
		} `json:"methods"`
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		return nil, fmt.Errorf("perfls check output: %w", err)
	}
	got := map[string]string{}
	for _, m := range doc.Methods {
		if len(m.Instances) == 1 {
			got[m.Method] = m.Instances[0].Outcome
		}
	}
	if len(got) != 2 {
		return nil, fmt.Errorf("perfls check: %d verdicts, want 2:\n%s", len(got), out)
	}
	return got, nil
}

// javaProject makes a temporary directory holding perfls (tempPerfls) and
// a project with one class of package p, file name and source src.
func javaProject(ctx context.Context, prefix, name, src string) (tmp, bin, proj string, err error) {
	if tmp, bin, err = tempPerfls(ctx, prefix); err != nil {
		return "", "", "", err
	}
	proj = filepath.Join(tmp, "project")
	if err = os.MkdirAll(filepath.Join(proj, "p"), 0o755); err == nil {
		err = os.WriteFile(filepath.Join(proj, "p", name), []byte(src), 0o644)
	}
	if err != nil {
		os.RemoveAll(tmp)
		return "", "", "", err
	}
	return tmp, bin, proj, nil
}

// tempPerfls makes a temporary directory (named with prefix; the caller
// removes it) and builds perfls into it (buildPerfls).
func tempPerfls(ctx context.Context, prefix string) (tmp, bin string, err error) {
	if tmp, err = os.MkdirTemp("", prefix); err != nil {
		return "", "", err
	}
	if bin, err = buildPerfls(ctx, tmp); err != nil {
		os.RemoveAll(tmp)
		return "", "", err
	}
	return tmp, bin, nil
}

// buildPerfls builds ./cmd/perfls into dir, so that the benchmark runs
// perfls as a user does: the binary, out of process.
func buildPerfls(ctx context.Context, dir string) (string, error) {
	bin := filepath.Join(dir, "perfls")
	if out, err := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/perfls").CombinedOutput(); err != nil {
		return "", fmt.Errorf("build perfls: %v\n%s", err, out)
	}
	return bin, nil
}
