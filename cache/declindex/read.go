package declindex

import (
	"fmt"

	"github.com/perfls/perfls/internal/input"
)

// ReadJava reads the Java file at path: a regular file, or a symbolic link
// to one, of at most MaxFileSize bytes. Anything else is refused without
// blocking (a FIFO named X.java in a project would wait for a writer):
// input.ReadRegular.
func ReadJava(path string) ([]byte, error) {
	data, err := input.ReadRegular(path, input.JavaSource)
	if err != nil {
		return nil, fmt.Errorf("%w: skipped", err)
	}
	return data, nil
}
