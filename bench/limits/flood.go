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

	got := &floodReceipts{otherErrors: map[string]int{}}
	if kind == "read" {
		go got.read(s)
	}
	f := &flooder{s: s, uri: uri, line: line, hovers: hovers, src: src, edited: edited}
	stopSending := make(chan struct{})
	sending := make(chan error, 1) // a write that failed before stopSending
	go f.send(stopSending, sending)

	clientKind := map[string]string{"noread": "never reads its stdout", "read": "reads everything"}[kind]
	fmt.Printf("perfls serve, a client that %s, sending %d hovers per whole-text didChange of a %.0f KB Java file as fast as it can, for %v:\n",
		clientKind, hovers, float64(len(src))/1024, d)
	fmt.Printf("  %6s  %9s  %8s  %12s\n", "time", "RSS", "peak", "messages")
	start := time.Now()
	peak, ended := watchRSS(pid, start, d, maxRSS, &f.sent, sending)
	el := time.Since(start)
	n := f.sent.Load()
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

// floodReceipts is what the reading client receives, by kind.
type floodReceipts struct {
	sync.Mutex
	results, busy, modified, diagnostics, other int
	otherErrors                                 map[string]int // by message
}

// read counts the server's messages and answers its requests until reading
// fails (the server was killed).
func (got *floodReceipts) read(s *session) {
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
}

// flooder sends hovers at line of the file at uri and whole-text
// didChanges that alternate between src and edited.
type flooder struct {
	s            *session
	uri          string
	line, hovers int
	src, edited  string
	sent         atomic.Int64 // messages sent
}

// send floods the server, hovers hovers per didChange, until stop closes or
// a write fails (the server was killed); a failed write goes to failed.
func (f *flooder) send(stop <-chan struct{}, failed chan<- error) {
	id, version := 1000, 1
	for {
		select {
		case <-stop:
			return
		default:
		}
		for range f.hovers {
			id++
			if err := f.s.send(map[string]any{"id": id, "method": "textDocument/hover", "params": map[string]any{
				"textDocument": map[string]any{"uri": f.uri}, "position": map[string]any{"line": f.line, "character": 16}}}); err != nil {
				failed <- err
				return
			}
			f.sent.Add(1)
		}
		version++
		text := f.src
		if version%2 == 0 {
			text = f.edited
		}
		if err := f.s.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": f.uri, "version": version},
			"contentChanges": []map[string]any{{"text": text}}}); err != nil {
			failed <- err
			return
		}
		f.sent.Add(1)
	}
}

// watchRSS samples the memory of process pid every 100 ms from start for d,
// printing it with the messages sent at a few marks, and ends early when
// sending fails, the process exits or its RSS passes maxRSS MB. It returns
// the peak (KB) and why it ended early ("" when it did not).
func watchRSS(pid int, start time.Time, d time.Duration, maxRSS int, sent *atomic.Int64, sending <-chan error) (peak int, ended string) {
	marks := []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 10 * time.Second, 20 * time.Second, 30 * time.Second, 40 * time.Second, time.Minute}
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for range tick.C {
		el := time.Since(start)
		select {
		case err := <-sending:
			return peak, fmt.Sprintf("sending failed after %.1f s: %v", el.Seconds(), err)
		default:
		}
		rss, hwm, err := rssOf(pid)
		if err != nil {
			return peak, fmt.Sprintf("the server exited after %.1f s", el.Seconds())
		}
		peak = max(peak, rss, hwm)
		if len(marks) > 0 && el >= marks[0] {
			fmt.Printf("  %5.0fs  %6d MB  %5d MB  %12d\n", el.Seconds(), rss>>10, hwm>>10, sent.Load())
			for len(marks) > 0 && el >= marks[0] {
				marks = marks[1:]
			}
		}
		if rss>>10 > maxRSS {
			return peak, fmt.Sprintf("killed after %.1f s: RSS %d MB passed -max-rss %d MB", el.Seconds(), rss>>10, maxRSS)
		}
		if el >= d {
			return peak, ""
		}
	}
	return peak, ""
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
