//go:build !unix

package service

import "context"

// Open returns a Local service: the shared daemon needs Unix sockets.
func Open(ctx context.Context, cacheDir string) (Service, error) {
	return NewLocal(ctx, cacheDir, 1), nil
}
