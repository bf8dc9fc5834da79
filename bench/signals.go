package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// signalsBench prints, per command and what it is doing, the time from
// SIGINT (and SIGTERM) to the process's exit, the median of -runs runs,
// with the exit status (issue 34 item 4: within 1 s, 130 and 143). perfls
// runs as a user runs it: the built binary, out of process. Linux: the
// moment a command has its input open is read from /proc.
func signalsBench(args []string) error {
	fl := flag.NewFlagSet("signals", flag.ExitOnError)
	runs := fl.Int("runs", 5, "runs per command, input and signal")
	only := fl.String("case", "", "only the cases whose command or input contains this text")
	if err := fl.Parse(args); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "perfls-bench-signals")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	bin, err := buildPerfls(context.Background(), tmp)
	if err != nil {
		return err
	}
	cases, err := signalCases(tmp)
	if err != nil {
		return err
	}
	fmt.Printf("perfls: time from the signal to the exit, median of %d runs (max), and the exit status\n\n", *runs)
	fmt.Printf("%-10s %-36s %-22s %-22s\n", "command", "doing", "SIGINT", "SIGTERM")
	for _, c := range cases {
		if *only != "" && !strings.Contains(c.command+" "+c.doing, *only) {
			continue
		}
		fmt.Printf("%-10s %-36s", c.command, c.doing)
		for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
			var lat []time.Duration
			codes := map[int]int{}
			var self []time.Duration
			for i := 0; i < *runs; i++ {
				r, err := c.run(bin, tmp, sig)
				if err != nil {
					return fmt.Errorf("%s %s: %w", c.command, c.doing, err)
				}
				codes[r.code]++
				if r.byItself {
					self = append(self, r.took)
				} else {
					lat = append(lat, r.took)
				}
			}
			cell := ""
			if len(lat) > 0 {
				cell = fmt.Sprintf("%s (%s)", msText(medianDur(lat)), msText(maxDur(lat)))
			}
			if len(self) > 0 {
				cell = strings.TrimSpace(cell + fmt.Sprintf(" %d× ended first", len(self)))
			}
			fmt.Printf(" %-22s", cell+" "+exitCodes(codes))
		}
		fmt.Println()
		if c.done != nil {
			c.done()
		}
	}
	return nil
}

// signalCase is a command doing something when the signal comes.
type signalCase struct {
	command, doing string
	// setup prepares one run: the arguments, the input the process must
	// hold open before the signal ("" = none), how long to wait after that
	// (or after the start), and what to undo after the run.
	setup func(cmd *exec.Cmd) (args []string, open string, settle time.Duration, undo func(), err error)
	ready func(pid int) bool // instead of open: a condition on the process
	env   []string
	done  func() // after all runs
}

type signalRun struct {
	took     time.Duration
	code     int
	byItself bool // ended before the signal: took is from the start
}

func (c signalCase) run(bin, tmp string, sig syscall.Signal) (signalRun, error) {
	cmd := exec.Command(bin)
	args, open, settle, undo, err := c.setup(cmd)
	if err != nil {
		return signalRun{}, err
	}
	defer undo()
	cmd.Args = append(cmd.Args, args...)
	cmd.Env = append(os.Environ(), "PERFLS_CACHE_DIR="+filepath.Join(tmp, "cache"), "XDG_RUNTIME_DIR="+filepath.Join(tmp, "run"))
	cmd.Env = append(cmd.Env, c.env...)
	os.MkdirAll(filepath.Join(tmp, "run"), 0o700)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return signalRun{}, err
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	ended := func() bool {
		select {
		case <-done:
			return true
		default:
			return false
		}
	}
	deadline := time.Now().Add(5 * time.Minute)
	for !ended() && (open != "" && !holdsOpen(cmd.Process.Pid, open) || c.ready != nil && !c.ready(cmd.Process.Pid)) {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			<-done
			return signalRun{}, fmt.Errorf("not ready after 5 minutes\n%s", out.String())
		}
		time.Sleep(2 * time.Millisecond)
	}
	select {
	case <-done:
	case <-time.After(settle):
	}
	if ended() {
		return signalRun{took: time.Since(start), code: cmd.ProcessState.ExitCode(), byItself: true}, nil
	}
	sent := time.Now()
	cmd.Process.Signal(sig)
	select {
	case <-done:
	case <-time.After(time.Minute):
		cmd.Process.Kill()
		<-done
		return signalRun{}, fmt.Errorf("still running a minute after %v\n%s", sig, out.String())
	}
	return signalRun{took: time.Since(sent), code: cmd.ProcessState.ExitCode()}, nil
}

// signalCases: each reader on a FIFO without a writer, with a writer that
// never writes, stdin never written and /dev/zero; ensemble parsing 10⁶
// rows; evaluate in a long bootstrap; measure with a fork running; serve
// and daemon run idle.
func signalCases(tmp string) ([]signalCase, error) {
	f, err := writeSignalFixtures(tmp)
	if err != nil {
		return nil, err
	}
	none := func() {}
	readers := signalReaders(f.ensemble)
	var cases []signalCase
	for _, r := range readers {
		cases = append(cases, readerCases(tmp, r.command, r.args)...)
	}
	cases = append(cases,
		signalCase{command: "ensemble", doing: "parsing 10⁶ rows (22 MB)", setup: func(*exec.Cmd) ([]string, string, time.Duration, func(), error) {
			return readers[3].args(f.huge), f.huge, 100 * time.Millisecond, none, nil
		}},
		signalCase{command: "evaluate", doing: "bootstrap of 2·10⁷ resamples", setup: func(*exec.Cmd) ([]string, string, time.Duration, func(), error) {
			return []string{"evaluate", "--data", f.results, "--formula", "a.B#f[jmh] <= a.B#g[jmh]", "--interpretation", "nonparametric", "--resamples", "20000000"},
				"", 500 * time.Millisecond, none, nil
		}},
		signalCase{command: "measure", doing: "a forked JVM running", setup: func(*exec.Cmd) ([]string, string, time.Duration, func(), error) {
			return []string{"measure", "--project", f.spin, "--method", "p.Spin#forever", "--args", "1", "--forks", "1", "--fork-timeout", "10m"}, "", 200 * time.Millisecond, none, nil
		}, ready: forking},
		signalCase{command: "daemon run", doing: "idle", setup: func(*exec.Cmd) ([]string, string, time.Duration, func(), error) {
			return []string{"daemon", "run"}, "", time.Second, none, nil
		}},
	)
	// serve starts a daemon of its own (in its own directories): stopped after its runs.
	serveEnv := []string{"PERFLS_CACHE_DIR=" + filepath.Join(tmp, "serve-cache"), "XDG_RUNTIME_DIR=" + filepath.Join(tmp, "serve-run")}
	os.MkdirAll(filepath.Join(tmp, "serve-run"), 0o700)
	cases = append(cases, signalCase{command: "serve", doing: "idle, stdin open", env: serveEnv, setup: func(cmd *exec.Cmd) ([]string, string, time.Duration, func(), error) {
		pr, pw, err := os.Pipe()
		cmd.Stdin = pr
		return []string{"serve"}, "", 1500 * time.Millisecond, func() { pr.Close(); pw.Close() }, err
	}, done: func() {
		stop := exec.Command(filepath.Join(tmp, "perfls"), "daemon", "stop")
		stop.Env = append(os.Environ(), serveEnv...)
		stop.Run()
	}})
	return cases, nil
}

// signalReader is a command that reads the file it is given (args puts
// the path in its command line).
type signalReader struct {
	command string
	args    func(in string) []string
}

// signalReaders: predict, evaluate, lint and ensemble, whose history's one
// run is the input (a link to it, in the directory ens).
func signalReaders(ens string) []signalReader {
	return []signalReader{
		{"predict", func(in string) []string { return []string{"predict", "--model", in, "n=5"} }},
		{"evaluate", func(in string) []string {
			return []string{"evaluate", "--data", in, "--formula", "a.B#f[jmh] <= a.B#g[jmh]"}
		}},
		{"lint", func(in string) []string { return []string{"lint", in} }},
		{"ensemble", func(in string) []string {
			link := filepath.Join(ens, "history", "r.csv")
			os.Remove(link)
			os.Symlink(in, link)
			return []string{"ensemble", "--history", filepath.Join(ens, "history"), "--new", filepath.Join(ens, "new")}
		}},
	}
}

// readerCases: the reader on a FIFO without a writer, a FIFO whose writer
// never writes, stdin never written and /dev/zero.
func readerCases(tmp, command string, args func(string) []string) []signalCase {
	none := func() {}
	fifo := func() (string, error) {
		p := filepath.Join(tmp, "fifo")
		os.Remove(p)
		return p, syscall.Mkfifo(p, 0o600)
	}
	return []signalCase{
		{command: command, doing: "FIFO, no writer", setup: func(*exec.Cmd) ([]string, string, time.Duration, func(), error) {
			p, err := fifo()
			return args(p), p, 0, none, err
		}},
		{command: command, doing: "FIFO, a writer that never writes", setup: func(*exec.Cmd) ([]string, string, time.Duration, func(), error) {
			p, err := fifo()
			if err != nil {
				return nil, "", 0, none, err
			}
			w, err := os.OpenFile(p, os.O_RDWR, 0) // never blocks on Linux
			return args(p), p, 0, func() { w.Close() }, err
		}},
		{command: command, doing: "stdin never written", setup: func(cmd *exec.Cmd) ([]string, string, time.Duration, func(), error) {
			pr, pw, err := os.Pipe()
			if err != nil {
				return nil, "", 0, none, err
			}
			cmd.Stdin = pr
			link, err := os.Readlink(fmt.Sprintf("/proc/self/fd/%d", pr.Fd()))
			return args("/dev/stdin"), link, 0, func() { pr.Close(); pw.Close() }, err
		}},
		{command: command, doing: "/dev/zero", setup: func(*exec.Cmd) ([]string, string, time.Duration, func(), error) {
			return args("/dev/zero"), "/dev/zero", 0, none, nil
		}},
	}
}

// signalFixtures are the files the cases read.
type signalFixtures struct {
	ensemble, huge, results, spin string
}

// writeSignalFixtures writes ensemble's runs (the history's one run is
// linked to the input per case), a CSV run of 10⁶ rows, JMH results, and a
// project whose method never returns.
func writeSignalFixtures(tmp string) (signalFixtures, error) {
	f := signalFixtures{ensemble: filepath.Join(tmp, "ensemble"), huge: filepath.Join(tmp, "huge.csv"), results: filepath.Join(tmp, "results.json"), spin: filepath.Join(tmp, "spin")}
	var b strings.Builder
	b.WriteString("time,cpu,mem\n")
	for i := 0; i < 1000000; i++ {
		fmt.Fprintf(&b, "%d,%d.%03d,%d.%03d\n", i, 10+i%7, i%1000, 100+i%5, (i*7)%1000)
	}
	files := map[string]string{
		filepath.Join(f.ensemble, "history", "r.env"): "cores=2\n",
		filepath.Join(f.ensemble, "new", "n.csv"):     "time,cpu,mem\n0,1,2\n1,2,3\n",
		filepath.Join(f.ensemble, "new", "n.env"):     "cores=2\n",
		f.huge: b.String(),
		f.results: `[{"benchmark":"a.B.f","mode":"avgt","primaryMetric":{"scoreUnit":"ns/op","rawData":[[10,11,12],[11,12,13],[10,12,11]]}},` +
			`{"benchmark":"a.B.g","mode":"avgt","primaryMetric":{"scoreUnit":"ns/op","rawData":[[10,11,12],[11,12,13],[10,12,11]]}}]`,
		filepath.Join(f.spin, "src", "p", "Spin.java"): `package p;
public class Spin {
    public static int forever(int x) {
        while (true) {
            x = x * 31 + 7;
            if (x == 42 && System.nanoTime() < 0) {
                return x;
            }
        }
    }
}
`,
	}
	for p, text := range files {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return f, err
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			return f, err
		}
	}
	return f, nil
}

// holdsOpen says whether pid holds target open on a descriptor other than
// its standard input.
func holdsOpen(pid int, target string) bool {
	dir := fmt.Sprintf("/proc/%d/fd", pid)
	fds, _ := os.ReadDir(dir)
	for _, fd := range fds {
		if fd.Name() == "0" {
			continue
		}
		if link, err := os.Readlink(filepath.Join(dir, fd.Name())); err == nil && link == target {
			return true
		}
	}
	return false
}

// forking says whether pid has a measuring JVM child (its command line
// names a crash log).
func forking(pid int) bool {
	return exec.Command("pgrep", "-P", strconv.Itoa(pid), "-f", "XX:ErrorFile=").Run() == nil
}

func medianDur(ds []time.Duration) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

func maxDur(ds []time.Duration) time.Duration {
	m := ds[0]
	for _, d := range ds {
		m = max(m, d)
	}
	return m
}

func msText(d time.Duration) string { return fmt.Sprintf("%.0f ms", ms(d)) }

// exitCodes renders {130: 5} as "→130", mixed ones as "→130×4,2×1".
func exitCodes(codes map[int]int) string {
	var keys []int
	for k := range codes {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	if len(keys) == 1 {
		return "→" + strconv.Itoa(keys[0])
	}
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%d×%d", k, codes[k]))
	}
	return "→" + strings.Join(parts, ",")
}
