package main

import (
	"errors"
	"fmt"
	"io"
	"log"
	"os"

	"github.com/spf13/cobra"

	"github.com/perfls/perfls/cache"
	"github.com/perfls/perfls/engine"
	"github.com/perfls/perfls/server"
)

func (a *app) serveCommand() *cobra.Command {
	var logFile string
	cmd := &cobra.Command{
		Use:   "serve [--logfile FILE]",
		Short: "Run the language server on stdin/stdout",
		Long: `Runs the language server on stdin and stdout (LSP, Content-Length framing). Measuring
goes through the per-user daemon, started when none runs. Logs go to stderr, or to FILE.
Exit status: 0 after shutdown and exit, or when the client closes the connection;
1 on exit without shutdown (as LSP asks) or when the connection failed.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			logOut := a.stderr
			if logFile != "" {
				f, err := os.OpenFile(logFile, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
				if err != nil {
					return fmt.Errorf("serve: %w", err)
				}
				defer f.Close()
				logOut = f
			}
			logger := log.New(logOut, "perfls: ", log.LstdFlags)
			return a.serve(cmd, logger)
		},
	}
	cmd.Flags().StringVar(&logFile, "logfile", "", "append server logs to this file (default: stderr)")
	return cmd
}

func (a *app) serve(cmd *cobra.Command, logger *log.Logger) error {
	ctx := cmd.Context()
	opts := server.Options{Logger: logger}
	dir, err := cache.Dir()
	if err != nil {
		logger.Printf("no cache directory, so no verdicts and no measuring: %v", err)
	} else if eng, err := engine.Open(ctx, engine.Config{CacheDir: dir, Service: engine.StartDaemon, Logf: logger.Printf}); err != nil {
		logger.Printf("no verdicts and no measuring: %v", err)
	} else {
		defer eng.Close()
		if n := eng.Notice(); n != "" {
			logger.Print(n)
		}
		opts.CacheDir, opts.Actions = dir, eng
		if opts.Verdicts, err = eng.Store(); err != nil {
			logger.Printf("no recorded verdicts: %v", err)
		}
	}
	// stdout belongs to the protocol from here on. The connection reads
	// stdin through a pipe: closing a blocked read of the process's stdin
	// does not interrupt it, so without the pipe the exit notification
	// would close the connection but leave it waiting for input that the
	// client may never close. The copying goroutine ends at end of input,
	// or with the process.
	in := a.stdin
	if in != nil {
		pr, pw := io.Pipe()
		go func() {
			_, err := io.Copy(pw, a.stdin)
			pw.CloseWithError(err)
		}()
		in = pr
	}
	session := server.Serve(ctx, stdio{in: in, out: a.stdout}, opts)
	select {
	case <-session.Done():
	case <-ctx.Done():
		session.Close()
		<-session.Done()
	}
	return exitStatus(session.ExitCode())
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
