package measure

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/perfls/perfls/analysis/measured"
)

func TestUnescape(t *testing.T) {
	for in, want := range map[string]string{
		`\e`:              "",
		`plain`:           "plain",
		`a\sb\nc\\d\te\r`: "a b\nc\\d\te\r",
		`bell\x07!`:       "bell\x07!",
		`trailing\`:       `trailing\`,
		`\xzz`:            `\xzz`,
		`ünïcode\s→`:      "ünïcode →",
	} {
		if got := unescape(in); got != want {
			t.Errorf("unescape(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParseFrame(t *testing.T) {
	cases := []struct {
		line      string
		want      measured.Frame
		jdk, user bool
	}{
		{"\tat fixture.Work.explode(Work.java:61)", measured.Frame{Class: "fixture.Work", Method: "explode", File: "Work.java", Line: 61}, false, true},
		{"\tat java.base/java.util.Arrays.sort(Arrays.java:1041)", measured.Frame{Class: "java.util.Arrays", Method: "sort", File: "Arrays.java", Line: 1041}, true, false},
		{"\tat app//a.B$C.m(B.java:3)", measured.Frame{Class: "a.B$C", Method: "m", File: "B.java", Line: 3}, false, true},
		{"\tat com.foo.loader/foo@9.0/com.foo.Main.run(Main.java:101)", measured.Frame{Class: "com.foo.Main", Method: "run", File: "Main.java", Line: 101}, true, false},
		{"\tat java.lang.Thread.sleep(java.base@17.0.15/Native Method)", measured.Frame{Class: "java.lang.Thread", Method: "sleep"}, false, false},
		{"\tat fixture.PerflsHarness_3.run(PerflsHarness_3.java:40)", measured.Frame{Class: "fixture.PerflsHarness_3", Method: "run", File: "PerflsHarness_3.java", Line: 40}, false, false},
		{"\tat dev.perfls.internal.Bench.main(Bench.java:80)", measured.Frame{Class: "dev.perfls.internal.Bench", Method: "main", File: "Bench.java", Line: 80}, false, false},
		{"\tat Top.m(Unknown Source)", measured.Frame{Class: "Top", Method: "m"}, false, true},
	}
	for _, c := range cases {
		f, jdk, ok := parseFrame(c.line)
		if !ok || f != c.want || jdk != c.jdk || isUserFrame(f, jdk) != c.user {
			t.Errorf("parseFrame(%q) = %+v, %v, %v (user %v)", c.line, f, jdk, ok, isUserFrame(f, jdk))
		}
	}
	if _, _, ok := parseFrame("java.lang.RuntimeException: x"); ok {
		t.Error("parsed a non-frame")
	}
}

func TestParseStackTrace(t *testing.T) {
	trace := "java.lang.RuntimeException: wrapped\n" +
		"\tat a.Gen.outer(Gen.java:20)\n" +
		"\tat a.PerflsHarness_0.generate(PerflsHarness_0.java:5)\n" +
		"\tSuppressed: java.io.IOException: close\n" +
		"\t\tat b.Other.close(Other.java:9)\n" +
		"Caused by: java.lang.IllegalStateException: deep\n" +
		"second line of the message\n" +
		"\tat java.base/java.util.Objects.requireNonNull(Objects.java:1)\n" +
		"\tat a.Gen.inner(Gen.java:12)\n" +
		"\t... 4 more\n"
	info := parseStackTrace(trace)
	if info.exception != "java.lang.RuntimeException" || info.message != "wrapped" {
		t.Errorf("top = %q %q", info.exception, info.message)
	}
	if info.rootException != "java.lang.IllegalStateException" || info.rootMessage != "deep\nsecond line of the message" {
		t.Errorf("root = %q %q", info.rootException, info.rootMessage)
	}
	if info.frame == nil || info.frame.Method != "inner" || info.frame.Line != 12 {
		t.Errorf("frame = %+v", info.frame)
	}
}

func TestProtoWriter(t *testing.T) {
	w := newProtoWriter(2)
	input := "perfls-hello 1 4242\nperfls-env java.version 17.0.1\nperfls-env jvm.arg -Xmx32m\nperfls-env java.vm.name OpenJDK\\s64-Bit\n" +
		"stray native output\nperfls-tuples 16\nperfls-warmup 1000 300000000\n" +
		"perfls-sample 2000 1900 100 -1 0\nperfls-retaken 9000 1900\nperfls-sample 3000 -1 100 50 1\nperfls-sample 1 1 1 1 1\n" +
		"perfls-bogus whatever\nperfls-sample x\nperfls-output 12 hello\\sworld\\n\nperfls-end\n"
	// Feed it in awkward pieces.
	for i := 0; i < len(input); i += 7 {
		w.Write([]byte(input[i:min(i+7, len(input))]))
	}
	st := w.state()
	if st.version != 1 || st.pid != 4242 || st.tuples != 16 || st.warmupOps != 1000 || st.warmupNs != 300000000 || !st.ended {
		t.Errorf("state %+v", st)
	}
	if len(st.samples) != 2 || st.samples[1] != (sample{ns: 3000, cpuNs: -1, ops: 100, alloc: 50, gcs: 1, gcMs: -1, heapUsed: -1, jitMs: -1, classes: -1, procCPUNs: -1, processor: -1}) {
		t.Errorf("samples %+v", st.samples)
	}
	if st.env["java.vm.name"] != "OpenJDK 64-Bit" || len(st.jvmArgs) != 1 || st.output != "hello world\n" || st.outputTotal != 12 {
		t.Errorf("env %+v args %q output %q", st.env, st.jvmArgs, st.output)
	}
	if len(st.bad) != 1 || !strings.Contains(w.other.String(), "stray native output") {
		t.Errorf("bad %q other %q", st.bad, w.other.String())
	}
	for line, want := range map[string]string{"perfls-warmup 10 20 0 5 trend,heap\n": "[trend heap]", "perfls-warmup 10 20 1 5 -\n": "[]"} {
		w := newProtoWriter(2)
		w.Write([]byte(line))
		if st := w.state(); fmt.Sprint(st.warmupOpen) != want || st.warmupSettled != int(line[20]-'0') {
			t.Errorf("%q: open %q settled %d", line, st.warmupOpen, st.warmupSettled)
		}
	}
	f, err := interpret(&forkRun{proto: st, pid: 1, wall: time.Second}, Options{}.Defaults(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.NsPerOp) != 2 || f.NsPerOp[0] != 20 || f.CPUNsPerOp != nil || f.AllocBytesPerOp != nil || f.Ops != 100 || f.PID != 4242 || f.Retaken != 1 || f.Processors != nil {
		t.Errorf("fork %+v", f)
	}

	// Protocol 4: the measuring thread's id, and per sample its processor
	// (-2: it moved during the sample). A malformed processor is a bad line.
	w = newProtoWriter(5)
	w.Write([]byte("perfls-hello 4 7\nperfls-thread 7\n" +
		"perfls-sample 10 10 1 0 0 0 0 0 0 0 3\nperfls-sample 10 10 1 0 0 0 0 0 0 0 -2\nperfls-sample 10 10 1 0 0 0 0 0 0 0 x\n" +
		"perfls-thread abc\nperfls-end\n"))
	st = w.state()
	if st.thread != 7 || st.pinned || st.pinErr != nil || len(st.samples) != 2 || len(st.bad) != 2 {
		t.Errorf("protocol 4: thread %d pinned %v (%v), samples %+v, bad %q", st.thread, st.pinned, st.pinErr, st.samples, st.bad)
	}
	if f, err := interpret(&forkRun{proto: st, pid: 7}, Options{}.Defaults(), nil); err != nil || fmt.Sprint(f.Processors) != "[3 -2]" {
		t.Errorf("processors %v (%v), want [3 -2]", f.Processors, err)
	}
}

func TestInterpretFailures(t *testing.T) {
	opt := Options{HeapMB: 64, ForkTimeout: 5 * time.Second}.Defaults()
	cases := []struct {
		name string
		run  forkRun
		kind string
		want string
	}{
		{"jvm did not start", forkRun{exitCode: 1, stderr: "Unrecognized VM option 'Bogus'\nError: Could not create the Java Virtual Machine.\n"},
			measured.KindCrash, "JVM failed to start (exit status 1); stderr: Unrecognized VM option 'Bogus'"},
		{"killed", forkRun{proto: protoState{version: 1}, exitCode: -1, signal: "killed"}, measured.KindCrash, "killed by signal killed"},
		{"halt", forkRun{proto: protoState{version: 1}, exitCode: 5}, measured.KindCrash, "exited with status 5 before finishing"},
		{"exit without stack", forkRun{proto: protoState{version: 1, exited: true, exitStack: "System.exit called\n"}, exitCode: 0}, measured.KindExit, "workload called System.exit(0)"},
		{"oom on stderr", forkRun{proto: protoState{version: 1}, exitCode: 3, stderr: "Terminating due to java.lang.OutOfMemoryError: Java heap space"}, measured.KindOOM, "a heap of 64 MB"},
		{"timeout without dump", forkRun{proto: protoState{version: 1}, timedOut: true, exitCode: -1}, measured.KindTimeout, "fork timed out after 5s"},
		{"error in harness", forkRun{proto: protoState{version: 1, errPhase: "harness", errTrace: "java.lang.NoClassDefFoundError: x/Y\n\tat dev.perfls.internal.Bench.main(Bench.java:1)\n"}}, measured.KindException, "the harness threw java.lang.NoClassDefFoundError: x/Y"},
	}
	for _, c := range cases {
		_, err := interpret(&c.run, opt, nil)
		var we *measured.WorkloadError
		if !errors.As(err, &we) || we.Kind != c.kind || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v (kind %v), want %s containing %q", c.name, err, we, c.kind, c.want)
		}
	}
}
