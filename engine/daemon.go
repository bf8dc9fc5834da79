package engine

import (
	"context"
	"errors"
	"log"
	"os"
	"time"

	"github.com/perfls/perfls/analysis/report"
	"github.com/perfls/perfls/measure/service"
)

// RunDaemon runs the per-user measurement daemon in this process until ctx
// ends or a client asks it to stop: jobs measurements at once, results in
// the engine's store.
func (e *Engine) RunDaemon(ctx context.Context, jobs int, logger *log.Logger) error {
	svc := service.NewLocal(ctx, e.cfg.CacheDir, e.store, jobs)
	d, err := service.Listen(e.cfg.CacheDir, svc, logger)
	if err != nil {
		svc.Close()
		return err
	}
	logger.Printf("listening on %s (pid %d)", d.Socket(), os.Getpid())
	if err := d.Serve(ctx); err != nil {
		return err
	}
	logger.Printf("stopped")
	return nil
}

// StartDaemon starts the daemon in the background unless one answers, and
// returns its status.
func (e *Engine) StartDaemon(ctx context.Context) (*service.Status, error) {
	exe := e.cfg.Executable
	if exe == "" {
		var err error
		if exe, err = os.Executable(); err != nil {
			return nil, err
		}
	}
	c, err := service.EnsureDaemon(ctx, e.cfg.CacheDir, exe)
	if err != nil {
		return nil, err
	}
	return c.Status(ctx)
}

// DaemonStatus is the running daemon's status; ok is false when none
// answers on socket.
func (e *Engine) DaemonStatus(ctx context.Context) (st report.DaemonStatus, socket string, ok bool, err error) {
	c, err := service.Dial(ctx, e.cfg.CacheDir)
	if err != nil {
		if !errors.Is(err, service.ErrNoDaemon) {
			return st, "", false, err
		}
		socket, _ = service.SocketPath(e.cfg.CacheDir)
		return st, socket, false, nil
	}
	s, err := c.Status(ctx)
	if err != nil {
		return st, "", true, err
	}
	st = report.DaemonStatus{PID: s.PID, Up: time.Since(s.Started), Socket: s.Socket, Cache: s.Cache, Finished: s.Finished}
	for _, j := range s.Jobs {
		st.Jobs = append(st.Jobs, report.DaemonJob{Running: j.Running, Elapsed: j.Elapsed, Priority: j.Priority, Waiters: j.Waiters, Label: j.Label})
	}
	return st, s.Socket, true, nil
}

// StopDaemon asks the running daemon to stop; stopped is false when none
// was running.
func (e *Engine) StopDaemon(ctx context.Context) (stopped bool, err error) {
	c, err := service.Dial(ctx, e.cfg.CacheDir)
	if errors.Is(err, service.ErrNoDaemon) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return true, c.Shutdown(ctx)
}
