//go:build !unix

package service

import (
	"context"

	"github.com/perfls/perfls/cache"
)

// Open returns a Local service keeping results in store: the shared daemon
// needs Unix sockets.
func Open(ctx context.Context, cacheDir string, store *cache.Store) (Service, error) {
	return NewLocal(ctx, cacheDir, store, 1), nil
}
