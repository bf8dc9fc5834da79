package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// floodRun runs `perfls serve` under a client flooding it (issue 34,
// item 3) for d, and prints the server's resident memory as it goes and
// its peak: kind "noread" never reads the server's output, "read" reads
// everything; both send hovers and whole-text didChanges of a ~100 KB Java
// file as fast as they can, hovers per didChange. The server is killed
// when its memory passes maxRSS (MB), to spare the machine.
func floodRun(bin, kind string, d time.Duration, hovers, maxRSS int) error {
	if kind != "noread" && kind != "read" {
		return fmt.Errorf("-flood %q: want noread or read", kind)
	}
	tmp, bin, err := prepare(bin)
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	s, stop, err := startServer(bin, tmp, d+5*time.Minute)
	if err != nil {
		return err
	}
	defer stop()
	pid := s.cmd.Process.Pid

	src, line := floodSource(100 << 10)
	edited := strings.Replace(src, "return a.length + 0;", "return a.length + 0 ;", 1)
	uri, err := s.openJava(src)
	if err != nil {
		return err
	}

	// What the reading client receives, by kind.
	var got struct {
		sync.Mutex
		results, busy, modified, diagnostics, other int
		otherErrors                                 map[string]int // by message
	}
	got.otherErrors = map[string]int{}
	if kind == "read" {
		go func() {
			for {
				m, err := s.read()
				if err != nil {
					return
				}
				got.Lock()
				switch {
				case m.Method == "textDocument/publishDiagnostics":
					got.diagnostics++
				case m.Method != "":
					got.other++
				case m.Error == nil:
					got.results++
				case strings.Contains(string(*m.Error), "-32803"):
					got.busy++
				case strings.Contains(string(*m.Error), "-32801"):
					got.modified++
				default:
					var e struct{ Message string }
					json.Unmarshal(*m.Error, &e)
					got.otherErrors[e.Message]++
				}
				got.Unlock()
				s.reply(m)
			}
		}()
	}

	var sent atomic.Int64
	stopSending := make(chan struct{})
	sending := make(chan error, 1) // a write that failed before stopSending
	// The sender ends when stopSending closes or a write fails (the server
	// was killed).
	go func() {
		id, version := 1000, 1
		for {
			select {
			case <-stopSending:
				return
			default:
			}
			for range hovers {
				id++
				if err := s.send(map[string]any{"id": id, "method": "textDocument/hover", "params": map[string]any{
					"textDocument": map[string]any{"uri": uri}, "position": map[string]any{"line": line, "character": 16}}}); err != nil {
					sending <- err
					return
				}
				sent.Add(1)
			}
			version++
			text := src
			if version%2 == 0 {
				text = edited
			}
			if err := s.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": uri, "version": version},
				"contentChanges": []map[string]any{{"text": text}}}); err != nil {
				sending <- err
				return
			}
			sent.Add(1)
		}
	}()

	clientKind := map[string]string{"noread": "never reads its stdout", "read": "reads everything"}[kind]
	fmt.Printf("perfls serve, a client that %s, sending %d hovers per whole-text didChange of a %.0f KB Java file as fast as it can, for %v:\n",
		clientKind, hovers, float64(len(src))/1024, d)
	fmt.Printf("  %6s  %9s  %8s  %12s\n", "time", "RSS", "peak", "messages")
	start := time.Now()
	marks := []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 10 * time.Second, 20 * time.Second, 30 * time.Second, 40 * time.Second, time.Minute}
	peak, ended := 0, ""
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
sample:
	for range tick.C {
		el := time.Since(start)
		select {
		case err := <-sending:
			ended = fmt.Sprintf("sending failed after %.1f s: %v", el.Seconds(), err)
			break sample
		default:
		}
		rss, hwm, err := rssOf(pid)
		if err != nil {
			ended = fmt.Sprintf("the server exited after %.1f s", el.Seconds())
			break
		}
		peak = max(peak, rss, hwm)
		if len(marks) > 0 && el >= marks[0] {
			fmt.Printf("  %5.0fs  %6d MB  %5d MB  %12d\n", el.Seconds(), rss>>10, hwm>>10, sent.Load())
			for len(marks) > 0 && el >= marks[0] {
				marks = marks[1:]
			}
		}
		if rss>>10 > maxRSS {
			ended = fmt.Sprintf("killed after %.1f s: RSS %d MB passed -max-rss %d MB", el.Seconds(), rss>>10, maxRSS)
			break
		}
		if el >= d {
			break
		}
	}
	el := time.Since(start)
	n := sent.Load()
	close(stopSending)
	stop() // kills the server: the write of a client it no longer reads from fails
	if ended != "" {
		fmt.Printf("  %s\n", ended)
	}
	fmt.Printf("  peak RSS %d MB; %d messages sent in %.1f s (%.0f/s)\n", peak>>10, n, el.Seconds(), float64(n)/el.Seconds())
	if kind == "read" {
		got.Lock()
		fmt.Printf("  received: %d results, %d busy (-32803), %d content modified (-32801), %d publishDiagnostics, %d other messages, other errors: %v\n",
			got.results, got.busy, got.modified, got.diagnostics, got.other, got.otherErrors)
		got.Unlock()
	}
	if log, err := os.ReadFile(filepath.Join(tmp, "serve.log")); err == nil {
		for l := range strings.Lines(string(log)) {
			if strings.Contains(l, "load:") || strings.Contains(l, "gave up") {
				fmt.Printf("  server log: %s", l)
			}
		}
	}
	return nil
}

// floodSource is a Java file of about size bytes with formulas, and the
// line of the first formula's method (a hover there shows its formula).
func floodSource(size int) (string, int) {
	var b strings.Builder
	b.WriteString("package p;\n\nimport dev.perfls.SPL;\n\npublic class G {\n")
	b.WriteString("    public static Iterable<Object[]> ints(int n) { return null; }\n    public static int base(int[] a) { return a.length; }\n\n")
	line := strings.Count(b.String(), "\n") + 1
	for i := 0; i < 100; i++ {
		fmt.Fprintf(&b, "    @SPL(\"for n in {10, 100} SELF[ints](n) <= %d * p.G#base[ints](n)\")\n    public static int m%d(int[] a) { return a.length + %d; }\n\n", i%5+2, i, i)
	}
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, "    static int f%d(int x) { return x * %d; }\n", i, i)
	}
	b.WriteString("}\n")
	return b.String(), line
}

// rssOf reads a process's resident set size and its peak, in KB.
func rssOf(pid int) (rss, hwm int, err error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0, err
	}
	for l := range strings.Lines(string(b)) {
		f := strings.Fields(l)
		if len(f) < 2 {
			continue
		}
		switch f[0] {
		case "VmRSS:":
			rss, _ = strconv.Atoi(f[1])
		case "VmHWM:":
			hwm, _ = strconv.Atoi(f[1])
		case "State:":
			if f[1] == "Z" {
				return 0, 0, errors.New("exited")
			}
		}
	}
	return rss, hwm, nil
}
