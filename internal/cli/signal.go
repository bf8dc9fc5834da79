package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
	"time"
)

// Interrupted is the cause of a command's context when a signal stopped
// it; the command then exits 128 + the signal's number, as a shell reports
// a process the signal killed: 130 for SIGINT, 143 for SIGTERM, 129 for
// SIGHUP.
type Interrupted struct{ Signal syscall.Signal }

func (e Interrupted) Error() string {
	name, ok := map[syscall.Signal]string{syscall.SIGINT: "SIGINT", syscall.SIGTERM: "SIGTERM", syscall.SIGHUP: "SIGHUP"}[e.Signal]
	if !ok {
		name = e.Signal.String()
	}
	return "interrupted (" + name + ")"
}

// Status is the exit status after the signal.
func (e Interrupted) Status() int { return 128 + int(e.Signal) }

// InterruptGrace is how long a command has, after a signal, to return on
// its own: long enough for what the cancelled context stops to stop — a
// forked JVM killed and reaped, a store transaction rolled back (5–40 ms,
// go run ./bench signals) — and short enough that perfls is gone within
// the second users expect even on a loaded machine (at load 14 on two
// cores, a process got the processor back up to 1.2 s after a 0.7 s
// timer). A command still running then (a computation or a read that does
// not look at the context) is ended by the exit.
const InterruptGrace = 500 * time.Millisecond

// NotifyContext returns a context that SIGINT, SIGTERM or SIGHUP cancel
// with Interrupted as the cause. After the signal the command has
// InterruptGrace to return; then, or at a second signal, exit is called
// with the signal's status after a line on stderr naming the program.
// stop ends the watch.
//
// signal.NotifyContext is not enough: it takes the signals' default exit
// away, and a command that does not look at its context (a read of a FIFO,
// a long loop) then never ends.
func NotifyContext(parent context.Context, name string, stderr io.Writer, exit func(int)) (ctx context.Context, stop func()) {
	g := new(grace)
	g.d.Store(int64(InterruptGrace))
	ctx, cancel := context.WithCancelCause(context.WithValue(parent, graceKey{}, g))
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	done := make(chan struct{})
	go func() { // owned by stop: it returns when done closes
		var first Interrupted
		select {
		case s := <-sigs:
			first = Interrupted{s.(syscall.Signal)}
			cancel(first)
		case <-done:
			return
		}
		d := time.Duration(g.d.Load())
		if d > InterruptGrace {
			fmt.Fprintf(stderr, "%s: %v: finishing the running work (up to %v); a second signal stops at once\n", name, first, d)
		}
		timer := time.NewTimer(d)
		defer timer.Stop()
		select {
		case <-timer.C:
		case <-sigs:
		case <-done:
			return
		}
		fmt.Fprintf(stderr, "%s: %v: stopped without waiting for the command to end\n", name, first)
		exit(first.Status())
	}()
	return ctx, func() {
		signal.Stop(sigs)
		close(done)
		cancel(nil)
	}
}

// grace is how long a command has after a signal; ExtendGrace sets it.
type grace struct{ d atomic.Int64 }

type graceKey struct{}

// ExtendGrace gives the command running under ctx d after a signal instead
// of InterruptGrace: for one that stops by finishing what it has begun,
// on purpose (perfls worker lets its running job finish). A second signal
// still ends it at once. Outside NotifyContext it does nothing.
func ExtendGrace(ctx context.Context, d time.Duration) {
	if g, ok := ctx.Value(graceKey{}).(*grace); ok && d > InterruptGrace {
		g.d.Store(int64(d))
	}
}
