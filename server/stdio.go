package server

import (
	"context"
	"errors"
	"io"
	"time"
)

// ServeStdio runs an LSP session on a process's standard streams until the
// client sends exit, closes stdin, or ctx ends, and returns the process's
// exit status (Session.ExitCode). stdout belongs to the protocol.
func ServeStdio(ctx context.Context, stdin io.Reader, stdout io.Writer, opts Options) int {
	// The connection reads stdin through a pipe: closing a blocked read of
	// the process's stdin does not interrupt it, so without the pipe the
	// exit notification would close the connection but leave it waiting
	// for input the client may never close. The copying goroutine ends at
	// end of input, or with the process.
	pr, pw := io.Pipe()
	go func() {
		_, err := io.Copy(pw, stdin)
		pw.CloseWithError(err)
	}()
	session := Serve(ctx, stdio{in: pr, out: stdout}, opts)
	select {
	case <-session.Done():
	case <-ctx.Done():
		session.Close()
		<-session.Done()
	}
	// Background work stops with the connection; let it finish its writes
	// to the cache and reap its children, but never hold the exit long.
	session.WaitFor(10 * time.Second)
	return session.ExitCode()
}

// stdio joins a process's standard streams into one io.ReadWriteCloser.
type stdio struct {
	in  io.ReadCloser
	out io.Writer
}

func (s stdio) Read(p []byte) (int, error)  { return s.in.Read(p) }
func (s stdio) Write(p []byte) (int, error) { return s.out.Write(p) }
func (s stdio) Close() error {
	errs := []error{s.in.Close()}
	if c, ok := s.out.(io.Closer); ok {
		errs = append(errs, c.Close())
	}
	return errors.Join(errs...)
}
