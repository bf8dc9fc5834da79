package main

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// The side-by-side comparison with JMH (issue #15): the same Java sources,
// compiled by the same javac, measured by perfls (as a user runs it: the
// built binary, out of process, defaults, and --warmup 5s) and by JMH
// (built from a source checkout or jars the user gives; nothing is
// downloaded here), interleaved method by method, with the JVMs' default
// flags on both sides.

// jmhExtra holds the methods the quickstart lacks: a spin loop, an empty
// method and String#toCharArray on 500 characters, with their generators.
const jmhExtra = `package cmp;

import java.util.Collections;

public class Extra {
    public static long spin(long seed, int n) {
        long x = seed;
        for (int i = 0; i < n; i++) {
            x = x * 31 + 7;
        }
        return x;
    }

    public static Iterable<Object[]> spinArgs(int n) {
        return Collections.singletonList(new Object[] {12345L, n});
    }

    public static void empty() {}

    public static char[] chars(String s) {
        return s.toCharArray();
    }

    public static Iterable<Object[]> text(int n) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < n; i++) {
            b.append((char) ('a' + i % 26));
        }
        return Collections.singletonList(new Object[] {b.toString()});
    }
}
`

// jmhBench is the JMH side: each benchmark calls the method on the same
// arguments as perfls's generator builds, one operation per call
// (@OperationsPerInvocation for the 64 look-ups).
const jmhBench = `package cmp;

import java.util.Iterator;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.*;
import org.openjdk.jmh.infra.Blackhole;

@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class JmhBench {
    String[] words;
    int[][] arrays = new int[64][];
    int[] keys = new int[64];
    long seed;
    int steps;
    String text;

    @Setup
    public void setup() {
        words = (String[]) quickstart.Strings.words(200).iterator().next()[0];
        Iterator<Object[]> it = quickstart.Search.lookups(10000).iterator();
        for (int i = 0; i < 64; i++) {
            Object[] t = it.next();
            arrays[i] = (int[]) t[0];
            keys[i] = (Integer) t[1];
        }
        Object[] s = Extra.spinArgs(1000).iterator().next();
        seed = (Long) s[0];
        steps = (Integer) s[1];
        text = (String) Extra.text(500).iterator().next()[0];
    }

    @Benchmark
    public String joinWithBuilder() {
        return quickstart.Strings.joinWithBuilder(words);
    }

    @Benchmark
    @OperationsPerInvocation(64)
    public void binarySearch(Blackhole bh) {
        for (int i = 0; i < 64; i++) {
            bh.consume(quickstart.Search.binarySearch(arrays[i], keys[i]));
        }
    }

    @Benchmark
    @OperationsPerInvocation(64)
    public void linearSearch(Blackhole bh) {
        for (int i = 0; i < 64; i++) {
            bh.consume(quickstart.Search.linearSearch(arrays[i], keys[i]));
        }
    }

    @Benchmark
    public long spin() {
        return Extra.spin(seed, steps);
    }

    @Benchmark
    public void empty() {
        Extra.empty();
    }

    @Benchmark
    public char[] chars() {
        return Extra.chars(text);
    }
}
`

// jmhCase is one method measured by both tools.
type jmhCase struct {
	bench            string // JmhBench method
	method, workload string // perfls --method and --workload
	args             string
}

var jmhCases = []jmhCase{
	{"joinWithBuilder", "quickstart.Strings#joinWithBuilder", "quickstart.Strings#words", "200"},
	{"binarySearch", "quickstart.Search#binarySearch", "quickstart.Search#lookups", "10000"},
	{"linearSearch", "quickstart.Search#linearSearch", "quickstart.Search#lookups", "10000"},
	{"spin", "cmp.Extra#spin", "cmp.Extra#spinArgs", "1000"},
	{"empty", "cmp.Extra#empty", "", ""},
	{"chars", "cmp.Extra#chars", "cmp.Extra#text", "500"},
}

// jmhCompare builds JMH (from jmhSrc, a checkout of github.com/openjdk/jmh,
// or from jmhJars, its core and annotation-processor jars), compiles the
// quickstart plus jmhExtra and jmhBench once, and prints per method
// perfls's figure at its defaults and with --warmup 5s, JMH's, and the
// ratios. jmhArgs are JMH's run options.
func jmhCompare(ctx context.Context, jmhSrc, jmhJars, jmhArgs string) error {
	deps := []string{"/usr/share/java/joptsimple.jar", "/usr/share/java/commons-math3.jar"}
	for _, d := range deps {
		if _, err := os.Stat(d); err != nil {
			return fmt.Errorf("JMH needs %s: apt-get install libjoptsimple-java libcommons-math3-java", d)
		}
	}
	tmp, err := os.MkdirTemp("", "perfls-bench-jmh-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	var jmhCP []string
	switch {
	case jmhJars != "":
		jmhCP = filepath.SplitList(jmhJars)
	case jmhSrc != "":
		if jmhCP, err = buildJMH(ctx, jmhSrc, tmp, deps); err != nil {
			return err
		}
	default:
		return errors.New("give -jmh-src DIR (a checkout of github.com/openjdk/jmh) or -jmh-jars core.jar:annprocess.jar")
	}
	bin, proj, runCP, err := jmhSetup(ctx, tmp, jmhCP, deps)
	if err != nil {
		return err
	}
	fmt.Printf("perfls (defaults; --warmup 5s) and JMH (%s) on the same sources, interleaved; ns/op\n\n", jmhArgs)
	fmt.Println("| method | perfls default | perfls --warmup 5s | JMH | perfls/JMH | default/5s |")
	fmt.Println("|---|---|---|---|---|---|")
	for _, c := range jmhCases {
		def, err := perflsFigure(ctx, bin, proj, c)
		if err != nil {
			return err
		}
		long, err := perflsFigure(ctx, bin, proj, c, "--warmup", "5s")
		if err != nil {
			return err
		}
		jm, jerr, err := jmhFigure(ctx, runCP, c.bench, jmhArgs, tmp)
		if err != nil {
			return err
		}
		fmt.Printf("| %s | %.4g [%.4g, %.4g] | %.4g [%.4g, %.4g] | %.4g ± %.2g | %.2f | %.2f |\n", c.bench,
			def.mean, def.lo, def.hi, long.mean, long.lo, long.hi, jm, jerr, def.mean/jm, def.mean/long.mean)
	}
	return nil
}

// jmhSetup builds perfls into tmp, writes the project both tools measure
// and compiles it with the JMH benchmark; it returns the perfls binary, the
// project directory and JMH's run classpath.
func jmhSetup(ctx context.Context, tmp string, jmhCP, deps []string) (bin, proj, runCP string, err error) {
	if bin, err = buildPerfls(ctx, tmp); err != nil {
		return "", "", "", err
	}
	// One project for both tools: the quickstart's sources, the extra
	// methods and (for JMH only, outside perfls's source tree) the benchmark.
	proj = filepath.Join(tmp, "project")
	if err := copyTree("examples/quickstart/src", filepath.Join(proj, "src")); err != nil {
		return "", "", "", err
	}
	extra := filepath.Join(proj, "src", "main", "java", "cmp", "Extra.java")
	benchSrc := filepath.Join(tmp, "jmhsrc", "cmp", "JmhBench.java")
	for f, text := range map[string]string{extra: jmhExtra, benchSrc: jmhBench} {
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			return "", "", "", err
		}
		if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
			return "", "", "", err
		}
	}
	annotations := filepath.Join(tmp, "perfls-annotations.jar")
	if out, err := exec.CommandContext(ctx, bin, "annotations", "--jar", annotations).CombinedOutput(); err != nil {
		return "", "", "", fmt.Errorf("perfls annotations: %v\n%s", err, out)
	}
	classes := filepath.Join(tmp, "jmh-classes")
	srcs, err := javaFiles(filepath.Join(proj, "src"))
	if err != nil {
		return "", "", "", err
	}
	cp := strings.Join(append(append([]string{annotations}, jmhCP...), deps...), string(os.PathListSeparator))
	if err := run(ctx, "javac", append([]string{"-proc:full", "-cp", cp, "-processorpath", cp, "-d", classes, benchSrc}, srcs...)...); err != nil {
		// -proc:full is new in JDK 21; older javac runs processors by default.
		if err := run(ctx, "javac", append([]string{"-cp", cp, "-processorpath", cp, "-d", classes, benchSrc}, srcs...)...); err != nil {
			return "", "", "", err
		}
	}
	runCP = strings.Join(append(append([]string{classes}, jmhCP...), deps...), string(os.PathListSeparator))

	return bin, proj, runCP, nil
}

// buildJMH compiles JMH's core and annotation processor from a source
// checkout with javac and returns their class directories.
func buildJMH(ctx context.Context, src, tmp string, deps []string) ([]string, error) {
	var out []string
	cp := strings.Join(deps, string(os.PathListSeparator))
	for _, mod := range []string{"jmh-core", "jmh-generator-annprocess"} {
		files, err := javaFiles(filepath.Join(src, mod, "src", "main", "java"))
		if err != nil {
			return nil, fmt.Errorf("JMH source %s: %w", src, err)
		}
		dst := filepath.Join(tmp, mod)
		args := append([]string{"-nowarn", "-encoding", "UTF-8", "-cp", strings.Join(append(out, cp), string(os.PathListSeparator)), "-d", dst}, files...)
		if err := run(ctx, "javac", args...); err != nil {
			return nil, fmt.Errorf("compile %s: %w", mod, err)
		}
		if err := copyTree(filepath.Join(src, mod, "src", "main", "resources"), dst); err != nil {
			return nil, err
		}
		out = append(out, dst)
	}
	return out, nil
}

type figure struct{ mean, lo, hi float64 }

// perflsFigure runs perfls measure on c and returns its mean and interval.
func perflsFigure(ctx context.Context, bin, proj string, c jmhCase, extra ...string) (figure, error) {
	args := []string{"measure", "--project", proj, "--method", c.method, "--fresh", "--format", "json"}
	if c.workload != "" {
		args = append(args, "--workload", c.workload, "--args", c.args)
	}
	out, err := exec.CommandContext(ctx, bin, append(args, extra...)...).Output()
	if err != nil {
		return figure{}, fmt.Errorf("perfls %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	var doc struct {
		Summary struct {
			Mean float64    `json:"mean_ns_per_op"`
			CI   [2]float64 `json:"ci95_ns_per_op"`
		} `json:"summary"`
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		return figure{}, fmt.Errorf("perfls measure output: %w\n%s", err, out)
	}
	return figure{doc.Summary.Mean, doc.Summary.CI[0], doc.Summary.CI[1]}, nil
}

// jmhFigure runs one JMH benchmark and returns its score and error (ns/op).
func jmhFigure(ctx context.Context, cp, bench, jmhArgs, tmp string) (float64, float64, error) {
	res := filepath.Join(tmp, bench+".csv")
	args := append([]string{"-cp", cp, "org.openjdk.jmh.Main", "cmp.JmhBench." + bench + "$"}, strings.Fields(jmhArgs)...)
	args = append(args, "-rf", "csv", "-rff", res)
	start := time.Now()
	if err := run(ctx, "java", args...); err != nil {
		return 0, 0, fmt.Errorf("JMH %s: %w", bench, err)
	}
	f, err := os.Open(res)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	// "Benchmark","Mode","Threads","Samples","Score","Score Error (99.9%)","Unit"
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil || len(rows) != 2 || len(rows[1]) < 6 {
		return 0, 0, fmt.Errorf("JMH result %s: %v %q", res, err, rows)
	}
	score, err := strconv.ParseFloat(rows[1][4], 64)
	if err != nil {
		return 0, 0, fmt.Errorf("JMH result %s: %w", res, err)
	}
	e, _ := strconv.ParseFloat(rows[1][5], 64) // NaN with one fork
	fmt.Fprintf(os.Stderr, "JMH %s took %.0f s\n", bench, time.Since(start).Seconds())
	return score, e, nil
}

func run(ctx context.Context, name string, args ...string) error {
	cmd := exec.CommandContext(ctx, name, args...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s: %v\n%s", name, err, lastLinesOf(string(out), 20))
	}
	return nil
}

func lastLinesOf(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

func javaFiles(dir string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".java") {
			out = append(out, p)
		}
		return err
	})
	if err == nil && len(out) == 0 {
		err = fmt.Errorf("no Java sources in %s", dir)
	}
	return out, err
}

// copyTree copies the regular files under src into dst.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		to := filepath.Join(dst, rel)
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			return err
		}
		return os.WriteFile(to, b, 0o644)
	})
}
