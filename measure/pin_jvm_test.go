//go:build linux

package measure

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/perfls/perfls/analysis/measured"

	"golang.org/x/sys/unix"
)

// TestMeasurePinned runs real forks: unpinned, each sample names a
// processor this process may use; pinned, every sample ran on the chosen
// one, and a processor that does not exist is refused before any fork.
func TestMeasurePinned(t *testing.T) {
	_, b := fixtureBuild(t)
	rs := resolveAll(t, b, "fixture.Work#fast", "fixture.gen.Data#arrays")
	req := measured.Request{Method: rs[0], Generator: rs[1], Args: []measured.Arg{measured.IntArg(500)}}
	allowed, err := allowedCPUs()
	if err != nil {
		t.Fatal(err)
	}
	last := allowed[len(allowed)-1]
	opt := Options{Forks: 2, SamplesPerFork: 5, Warmup: 100 * time.Millisecond, MaxWarmup: time.Second}
	for _, cpus := range []string{"", FormatCPUs([]int{last})} {
		opt.CPUs = cpus
		res, err := Measure(context.Background(), b, []measured.Request{req}, opt, nil)
		if err != nil || res[0].Err != nil {
			t.Fatalf("cpus %q: %v %v", cpus, err, res[0].Err)
		}
		for i, f := range res[0].Forks {
			if len(f.Processors) != len(f.NsPerOp) {
				t.Fatalf("cpus %q fork %d: processors %v for %d samples", cpus, i, f.Processors, len(f.NsPerOp))
			}
			for _, p := range f.Processors {
				if cpus != "" && p != int64(last) || cpus == "" && p != -2 && !slices.Contains(allowed, int(p)) {
					t.Errorf("cpus %q fork %d: a sample on processor %d (%v)", cpus, i, p, f.Processors)
				}
			}
		}
	}
	opt.CPUs = "4096"
	res, err := Measure(context.Background(), b, []measured.Request{req}, opt, nil)
	if err == nil && (len(res) == 0 || res[0].Err == nil) {
		t.Fatalf("processor 4096: no error")
	}
	msg := ""
	if err != nil {
		msg = err.Error()
	} else {
		msg = res[0].Err.Error()
	}
	if !strings.Contains(msg, "processor 4096 is not one this process may use") {
		t.Errorf("processor 4096: %s", msg)
	}
}

// The thread a fork names is pinned only when it is one of the fork's own
// threads, whichever of the thread line and the process id comes first.
func TestPinOnlyTheForksThread(t *testing.T) {
	allowed, err := allowedCPUs()
	if err != nil {
		t.Fatal(err)
	}
	w := newProtoWriter(1)
	w.pin = []int{allowed[0]}
	w.setChild(os.Getpid())
	w.Write([]byte("perfls-thread 999999999\n"))
	if st := w.state(); st.pinned || st.pinErr == nil || !strings.Contains(st.pinErr.Error(), "not one of its threads") {
		t.Errorf("a thread of another process: pinned %v, err %v", st.pinned, st.pinErr)
	}

	// A thread of this process, reported before the process id is known.
	done := make(chan struct{})
	go func() {
		defer close(done)
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		tid := unix.Gettid()
		w := newProtoWriter(1)
		w.pin = []int{allowed[len(allowed)-1]}
		w.Write([]byte(fmt.Sprintf("perfls-thread %d\n", tid)))
		if w.state().pinned {
			t.Errorf("pinned before the process id was known")
		}
		w.setChild(os.Getpid())
		var set unix.CPUSet
		if st := w.state(); !st.pinned || st.pinErr != nil || unix.SchedGetaffinity(tid, &set) != nil || set.Count() != 1 || !set.IsSet(allowed[len(allowed)-1]) {
			t.Errorf("own thread: pinned %v, err %v, affinity %d processors", st.pinned, st.pinErr, set.Count())
		}
		set.Zero()
		for _, c := range allowed {
			set.Set(c)
		}
		unix.SchedSetaffinity(tid, &set) // give the thread back its processors
	}()
	<-done
}
