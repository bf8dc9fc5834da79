package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/perfls/perfls/analysis/javasrc"
	"github.com/perfls/perfls/internal/input"
)

// parseJava reads and parses one .java file. A file javasrc declines
// (binary, or larger than javasrc.MaxSourceBytes) is read only as far as
// its start and yields a model with File.Skipped set, not an error. The
// file is read through package input: a FIFO waits for its writer, and
// the read stops when ctx is done.
func parseJava(ctx context.Context, path string) (*javasrc.File, error) {
	// Uncapped: javasrc.Examine judges the size, and the read is capped below.
	fh, err := input.Open(ctx, path, input.Limit{Max: math.MaxInt64})
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	head := make([]byte, javasrc.SniffBytes)
	n, err := io.ReadFull(fh, head)
	head = head[:n]
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	size := fh.Size()
	if size < 0 { // a FIFO: as long as what came so far
		size = int64(n)
	}
	if why := javasrc.Examine(size, head); why != nil {
		return javasrc.NotParsed(path, head, why), nil
	}
	// What is there now, up to the limit: a FIFO, or a file that grew.
	rest, err := io.ReadAll(io.LimitReader(fh, javasrc.MaxSourceBytes+1-int64(n)))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if n+len(rest) > javasrc.MaxSourceBytes {
		return javasrc.NotParsed(path, head, javasrc.Examine(javasrc.MaxSourceBytes+1, head)), nil
	}
	f, err := javasrc.ParseContext(ctx, path, append(head, rest...))
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil && !errors.Is(err, ctxErr) {
			// Report the cancellation, whatever the parser made of it.
			err = fmt.Errorf("%w (%v)", ctxErr, err)
		}
		return nil, fmt.Errorf("parse %s: %w", path, err)
	}
	return f, nil
}
