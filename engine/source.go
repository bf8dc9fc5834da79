package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/perfls/perfls/analysis/javasrc"
)

// parseJava reads and parses one .java file. A file javasrc declines
// (binary, or larger than javasrc.MaxSourceBytes) is read only as far as
// its start and yields a model with File.Skipped set, not an error.
func parseJava(ctx context.Context, path string) (*javasrc.File, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	info, err := fh.Stat()
	if err != nil {
		return nil, err
	}
	head := make([]byte, min(info.Size(), javasrc.SniffBytes))
	if _, err := io.ReadFull(fh, head); err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if why := javasrc.Examine(info.Size(), head); why != nil {
		return javasrc.NotParsed(path, head, why), nil
	}
	// The size was checked, not limited: read what is there now.
	rest, err := io.ReadAll(fh)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
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
