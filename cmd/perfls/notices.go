package main

import "github.com/perfls/perfls/engine"

// notices prints the notices about project on stderr, those already shown
// as they read now only with all (-v) (engine.NoticesToShow remembers them
// in cacheDir), and how many it left out.
func (a *app) notices(cacheDir, project string, all bool, ns []string) {
	show, left := engine.NoticesToShow(cacheDir, project, all, ns)
	for _, n := range show {
		a.note("%s", n)
	}
	if left > 0 {
		a.note("%d notice(s) as on an earlier run, not repeated (-v shows them)", left)
	}
}
