//go:build unix

package cli

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// lockedBuffer is a stderr the watch and the test share.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// A signal cancels the context with Interrupted as the cause; a command
// that does not return is ended by exit with 128 + the signal's number.
func TestNotifyContextExitsAfterTheGrace(t *testing.T) {
	for _, c := range []struct {
		sig    syscall.Signal
		status int
	}{{syscall.SIGINT, 130}, {syscall.SIGTERM, 143}, {syscall.SIGHUP, 129}} {
		t.Run(c.sig.String(), func(t *testing.T) {
			var stderr lockedBuffer
			exited := make(chan int, 1)
			ctx, stop := NotifyContext(context.Background(), "tool", &stderr, func(code int) { exited <- code })
			defer stop()
			syscall.Kill(syscall.Getpid(), c.sig)
			select {
			case <-ctx.Done():
			case <-time.After(30 * time.Second):
				t.Fatal("the signal did not cancel the context")
			}
			var in Interrupted
			if !errors.As(context.Cause(ctx), &in) || in.Signal != c.sig || in.Status() != c.status {
				t.Fatalf("cause %v, want Interrupted{%v} with status %d", context.Cause(ctx), c.sig, c.status)
			}
			select { // the command "never returns": the watch ends it
			case code := <-exited:
				if code != c.status {
					t.Errorf("exit(%d), want %d", code, c.status)
				}
			case <-time.After(30 * time.Second):
				t.Fatal("exit was never called")
			}
			if !strings.Contains(stderr.String(), "tool: interrupted") {
				t.Errorf("stderr %q", stderr.String())
			}
		})
	}
}

// A command that returns in time is not exited under: stop ends the watch.
func TestNotifyContextStop(t *testing.T) {
	exited := make(chan int, 1)
	ctx, stop := NotifyContext(context.Background(), "tool", &lockedBuffer{}, func(code int) { exited <- code })
	syscall.Kill(syscall.Getpid(), syscall.SIGINT)
	<-ctx.Done()
	stop()
	select {
	case code := <-exited:
		t.Fatalf("exit(%d) after stop", code)
	case <-time.After(InterruptGrace + 200*time.Millisecond):
	}
}

// Run reports a signal as its status, whatever the command returned.
func TestRunAfterASignal(t *testing.T) {
	for _, err := range []error{nil, context.Canceled, errors.New("read f: i/o timeout"), ExitStatus(1)} {
		ctx, cancel := context.WithCancelCause(context.Background())
		cancel(Interrupted{syscall.SIGTERM})
		var stderr bytes.Buffer
		var got []string
		if code := Run(ctx, tree(err, &got), []string{"do"}, &stderr); code != 143 || stderr.String() != "tool: interrupted (SIGTERM)\n" {
			t.Errorf("command returned %v: exit %d, stderr %q; want 143, interrupted (SIGTERM)", err, code, stderr.String())
		}
	}
}

// Error messages reach the terminal with escapes defused and cut.
func TestRunMessagesArePrintable(t *testing.T) {
	var stderr bytes.Buffer
	var got []string
	Run(context.Background(), tree(errors.New("bad cell \x1b]0;pwned\x07 in \x9b2J"+strings.Repeat("x", 1<<20)), &got), []string{"do"}, &stderr)
	s := stderr.String()
	if strings.ContainsAny(s, "\x1b\x07\x9b") || !strings.Contains(s, `bad cell \x1b]0;pwned\a in \x9b2J`) {
		t.Errorf("stderr holds raw escapes: %q", s[:min(len(s), 80)])
	}
	if len(s) > maxMessage+100 || !strings.Contains(s, "bytes more)") {
		t.Errorf("a 1 MB message printed in %d bytes", len(s))
	}
}

// A command that drains on purpose gets its longer grace, announced; a
// second signal ends it at once.
func TestExtendGrace(t *testing.T) {
	var stderr lockedBuffer
	exited := make(chan int, 1)
	ctx, stop := NotifyContext(context.Background(), "tool", &stderr, func(code int) { exited <- code })
	defer stop()
	ExtendGrace(ctx, time.Hour)
	syscall.Kill(syscall.Getpid(), syscall.SIGTERM)
	<-ctx.Done()
	select {
	case code := <-exited:
		t.Fatalf("exit(%d) before the extended grace", code)
	case <-time.After(2 * InterruptGrace):
	}
	if !strings.Contains(stderr.String(), "tool: interrupted (SIGTERM): finishing the running work (up to 1h0m0s); a second signal stops at once") {
		t.Errorf("stderr %q", stderr.String())
	}
	syscall.Kill(syscall.Getpid(), syscall.SIGTERM)
	select {
	case code := <-exited:
		if code != 143 {
			t.Errorf("exit(%d), want 143", code)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("a second signal did not end it")
	}
}
