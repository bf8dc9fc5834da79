package cache

import (
	"fmt"
	"os"
	"path/filepath"
)

// Dir is the per-user cache directory: $PERFLS_CACHE_DIR, else the OS user
// cache directory (e.g. ~/.cache/perfls).
func Dir() (string, error) {
	if d := os.Getenv("PERFLS_CACHE_DIR"); d != "" {
		return d, nil
	}
	base, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("find user cache directory (set PERFLS_CACHE_DIR): %w", err)
	}
	return filepath.Join(base, "perfls"), nil
}
