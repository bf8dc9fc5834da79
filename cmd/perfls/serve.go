package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"

	"github.com/perfls/perfls/cache"
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
		opts.Verdicts = cache.OpenVerdicts(dir)
	} else {
		opts.Logger.Printf("no verdict record: %v", err)
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
