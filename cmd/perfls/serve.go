package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"

	"path/filepath"
	"sync"

	"github.com/perfls/perfls/analysis/verdict"
	"github.com/perfls/perfls/analysis/workspace"
	"github.com/perfls/perfls/cache"
	"github.com/perfls/perfls/measure/service"
	"github.com/perfls/perfls/server"
)

func runServe(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	fl := flag.NewFlagSet("serve", flag.ContinueOnError)
	fl.SetOutput(stderr)
	logFile := fl.String("logfile", "", "append server logs to this file (default: stderr)")
	if err := fl.Parse(args); err != nil {
		return exitUsage, nil
	}
	logOut := stderr
	if *logFile != "" {
		f, err := os.OpenFile(*logFile, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
		if err != nil {
			return exitUsage, fmt.Errorf("serve: %w", err)
		}
		defer f.Close()
		logOut = f
	}
	opts := server.Options{Logger: log.New(logOut, "perfls: ", log.LstdFlags)}
	if dir, err := cache.Dir(); err == nil {
		if store, notice, err := cache.OpenStore(ctx, dir); err == nil {
			defer store.Close()
			opts.Verdicts = store
			if notice != "" {
				opts.Logger.Print(notice)
			}
		} else {
			opts.Logger.Printf("no recorded verdicts: %v", err)
		}
		lc := &lspChecker{cacheDir: dir, logf: opts.Logger.Printf}
		defer lc.close()
		opts.Checker = lc
	} else {
		opts.Logger.Printf("no cache directory, so no verdicts and no measuring: %v", err)
	}
	// stdout belongs to the protocol from here on.
	conn := server.Serve(ctx, stdio{in: stdin, out: stdout}, opts)
	select {
	case <-conn.Done():
	case <-ctx.Done():
		conn.Close()
		<-conn.Done()
	}
	if err := conn.Err(); err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrClosedPipe) && !errors.Is(err, os.ErrClosed) {
		opts.Logger.Printf("connection closed: %v", err)
	}
	return exitOK, nil
}

// stdio joins the process's standard streams into one io.ReadWriteCloser.
type stdio struct {
	in  io.Reader
	out io.Writer
}

func (s stdio) Read(p []byte) (int, error)  { return s.in.Read(p) }
func (s stdio) Write(p []byte) (int, error) { return s.out.Write(p) }
func (s stdio) Close() error {
	var errs []error
	if c, ok := s.in.(io.Closer); ok {
		errs = append(errs, c.Close())
	}
	if c, ok := s.out.(io.Closer); ok {
		errs = append(errs, c.Close())
	}
	return errors.Join(errs...)
}

// lspChecker runs the "Check" code lens through the per-user daemon,
// starting it when none answers — so a daemon that died is replaced on the
// next request — and through an in-process service when no daemon can run.
type lspChecker struct {
	cacheDir string
	logf     func(string, ...any)

	mu    sync.Mutex
	local service.Service // fallback, created on first need
}

func (c *lspChecker) service(ctx context.Context) service.Service {
	if exe, err := os.Executable(); err == nil {
		if client, err := service.EnsureDaemon(ctx, c.cacheDir, exe); err == nil {
			return client
		} else {
			c.logf("measuring in-process: %v", err)
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.local == nil {
		c.local = service.NewLocal(ctx, c.cacheDir, 1)
	}
	return c.local
}

func (c *lspChecker) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.local != nil {
		c.local.Close()
	}
}

// Check measures and decides the formulas of one method, as an explicit user
// action (the code lens), ahead of batch and background work.
func (c *lspChecker) Check(ctx context.Context, req server.CheckRequest, report func(string)) ([]verdict.MethodResult, error) {
	dir := req.Root
	if dir == "" {
		dir = filepath.Dir(req.File)
	}
	keep := func(f *workspace.Formula) bool {
		m := f.Method
		if m == nil || m.Type == nil || f.Path != req.File || m.Type.BinaryName != req.Class || m.Name != req.Method || len(m.Params) != len(req.Params) {
			return false
		}
		for i, p := range m.Params {
			if p.Erased != req.Params[i] {
				return false
			}
		}
		return true
	}
	out, err := runCheckJob(ctx, c.service(ctx), checkJob{
		dir: dir, keep: keep, priority: service.Interactive,
		progress: func(p service.Progress) { report(p.Message) },
	})
	if err != nil {
		return nil, err
	}
	if len(out.compileErrors) > 0 {
		m := out.compileErrors[0]
		return nil, fmt.Errorf("the project does not compile: %s:%d: %s (and %d more)", m.File, m.Line, m.Message, len(out.compileErrors)-1)
	}
	return out.methods, nil
}
