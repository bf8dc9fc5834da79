package engine

import (
	"context"
	"log"
	"os"

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
func (e *Engine) DaemonStatus(ctx context.Context) (st *service.Status, socket string, ok bool, err error) {
	c, err := service.Dial(ctx, e.cfg.CacheDir)
	if err != nil {
		socket, _ = service.SocketPath(e.cfg.CacheDir)
		return nil, socket, false, nil
	}
	if st, err = c.Status(ctx); err != nil {
		return nil, "", true, err
	}
	return st, st.Socket, true, nil
}

// StopDaemon asks the running daemon to stop; stopped is false when none
// was running.
func (e *Engine) StopDaemon(ctx context.Context) (stopped bool, err error) {
	c, err := service.Dial(ctx, e.cfg.CacheDir)
	if err != nil {
		return false, nil
	}
	return true, c.Shutdown(ctx)
}
