// Package trust is perfls's one decision about a workspace: may perfls run
// its code — the build tool and its wrappers, javac, the JVM, git — and
// connect where its settings point (a shared store)? Without trust perfls
// reads files only. The decision is made once per workspace by the entry
// point (perfls lint: never; the language server: the client's
// allowMeasuring, which VS Code ties to workspace trust; every other
// command: the user's explicit action) and travels down in the context as
// a Gate. Every process perfls starts goes through Command, LongCommand or
// StartProcess here, and every connection to a store asks Check first, so
// the rule is enforced in one place (TestEveryProcessStartsHere checks the
// first half over the source tree). docs/security.md has the table.
package trust

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
)

// ErrUntrusted is what every refusal wraps (errors.Is).
var ErrUntrusted = errors.New("the workspace is not trusted")

// Gate holds one workspace's decision. It may change (the editor's
// settings change), so it is shared by pointer; the zero Gate is closed.
type Gate struct {
	mu      sync.Mutex
	trusted bool
	reason  string // why the gate is closed, for messages
}

// Open is a gate that lets everything through.
func Open() *Gate { return &Gate{trusted: true} }

// Closed is a gate that lets nothing through; reason says why, for the
// refusals ("perfls lint reads files only").
func Closed(reason string) *Gate { return &Gate{reason: reason} }

// Set changes the decision; reason says why it is closed.
func (g *Gate) Set(trusted bool, reason string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.trusted, g.reason = trusted, reason
}

// Trusted reports whether the gate is open.
func (g *Gate) Trusted() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.trusted
}

// Reason says why the gate is closed ("" when it is open).
func (g *Gate) Reason() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.trusted {
		return ""
	}
	if g.reason == "" {
		return ErrUntrusted.Error()
	}
	return g.reason
}

type gateKey struct{}

// With returns ctx carrying g: what runs under it asks g.
func With(ctx context.Context, g *Gate) context.Context {
	return context.WithValue(ctx, gateKey{}, g)
}

// From is the gate ctx carries; nil when it carries none, which is the
// command line's explicit action: trusted.
func From(ctx context.Context) *Gate {
	g, _ := ctx.Value(gateKey{}).(*Gate)
	return g
}

// Trusted reports whether ctx lets perfls run the workspace's code.
func Trusted(ctx context.Context) bool {
	g := From(ctx)
	return g == nil || g.Trusted()
}

// Refused is the error of something trust did not allow.
type Refused struct {
	// Action is what was not done: "run ./mvnw", "connect to the store …".
	Action string
	// Reason is why: the gate's reason.
	Reason string
}

func (e *Refused) Error() string {
	return fmt.Sprintf("did not %s: %s", e.Action, e.Reason)
}

func (e *Refused) Unwrap() error { return ErrUntrusted }

// Check returns a *Refused when ctx's gate is closed; action says what
// would have been done ("run git", "connect to the store …").
func Check(ctx context.Context, action string) error {
	g := From(ctx)
	if g == nil || g.Trusted() {
		return nil
	}
	return &Refused{Action: action, Reason: g.Reason()}
}

// Command is exec.CommandContext once ctx's gate allows it: the process
// is killed when ctx ends.
func Command(ctx context.Context, name string, arg ...string) (*exec.Cmd, error) {
	if err := Check(ctx, "run "+name); err != nil {
		return nil, err
	}
	return exec.CommandContext(ctx, name, arg...), nil
}

// LongCommand is exec.Command once ctx's gate allows it: a process whose
// lifetime its caller manages (a JVM worker kept warm across requests, a
// fork killed by its own process group).
func LongCommand(ctx context.Context, name string, arg ...string) (*exec.Cmd, error) {
	if err := Check(ctx, "run "+name); err != nil {
		return nil, err
	}
	return exec.Command(name, arg...), nil
}

// StartProcess is os.StartProcess once ctx's gate allows it: a process
// that outlives perfls's command (the measurement daemon).
func StartProcess(ctx context.Context, name string, argv []string, attr *os.ProcAttr) (*os.Process, error) {
	if err := Check(ctx, "run "+name); err != nil {
		return nil, err
	}
	return os.StartProcess(name, argv, attr)
}
