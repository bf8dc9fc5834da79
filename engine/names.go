package engine

import (
	"sort"
	"strings"

	"github.com/perfls/perfls/analysis/workspace"
	"github.com/perfls/perfls/cache/declindex"
)

// MethodNames lists the methods declared under dir whose names start with
// prefix, as perfls names them on the command line (pkg.Class#method): the
// generators (methods returning Iterable<Object[]>) when generators is true,
// the other methods else. It
// reads the declaration index persisted in cacheDir ("" = none), so asking
// again is quick: shell completion of --method and --workload.
func MethodNames(dir, cacheDir, prefix string, generators bool) ([]string, error) {
	files, _, err := declindex.IndexRoot(dir, declindex.Path(cacheDir, dir), nil, nil)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var out []string
	for _, f := range files {
		for _, m := range f.Methods {
			if m.Type == nil || m.IsConstructor || m.Type.Anonymous || m.Type.Local || workspace.IsGenerator(m) != generators {
				continue
			}
			name := m.Type.BinaryName + "#" + m.Name
			if strings.HasPrefix(name, prefix) && !seen[name] {
				seen[name] = true
				out = append(out, name)
			}
		}
	}
	sort.Strings(out)
	return out, nil
}
