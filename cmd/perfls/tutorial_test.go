package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/perfls/perfls/analysis/report"
	"github.com/perfls/perfls/internal/fixture"
)

// tutorialStep is a file the tutorial writes or a command it runs.
type tutorialStep struct {
	file, text string   // a code block with title=PATH
	command    []string // a "$ perfls …" line of a console block
}

// tutorialSteps reads docs/tutorial.md's files and commands in order.
func tutorialSteps(t *testing.T) []tutorialStep {
	t.Helper()
	b, err := os.ReadFile("../../docs/tutorial.md")
	if err != nil {
		t.Fatal(err)
	}
	fence := regexp.MustCompile("(?ms)^```([a-z]+)( title=(\\S+))?\n(.*?)^```\n")
	var steps []tutorialStep
	for _, m := range fence.FindAllStringSubmatch(string(b), -1) {
		lang, title, body := m[1], m[3], m[4]
		switch {
		case title != "":
			steps = append(steps, tutorialStep{file: title, text: body})
		case lang == "console":
			for _, line := range strings.Split(body, "\n") {
				if cmd, ok := strings.CutPrefix(line, "$ "); ok {
					steps = append(steps, tutorialStep{command: strings.Fields(cmd)})
				}
			}
		}
	}
	return steps
}

// TestTutorial writes every file of docs/tutorial.md and runs every
// command, in order, in a Maven project that resolves offline (Debian's
// plugin repository and the test's own local repository), with few forks
// and samples; every command must succeed and the check must decide.
func TestTutorial(t *testing.T) {
	m := fixture.NewMaven(t)
	fixture.Isolate(t)
	steps := tutorialSteps(t)
	if len(steps) < 6 {
		t.Fatalf("docs/tutorial.md: %d steps found; the parser or the page changed", len(steps))
	}
	dir := fixture.Project(t, map[string]string{})
	m.Configure(t, dir)
	t.Chdir(dir)
	quick := []string{"--forks", "2", "--samples", "5", "--warmup", "20ms", "--max-warmup", "2s"}
	for _, s := range steps {
		if s.file != "" {
			fixture.WriteFiles(t, dir, map[string]string{s.file: s.text})
			continue
		}
		if s.command[0] != "perfls" {
			t.Fatalf("tutorial command %q does not start with perfls", strings.Join(s.command, " "))
		}
		args := s.command[1:]
		switch args[0] {
		case "annotations":
			args = append(args, "--repo", m.LocalRepo)
		case "measure":
			args = append(append(args[:1:1], quick...), args[1:]...)
		case "check":
			args = append(append(append(args[:1:1], quick...), "--max-forks", "2"), args[1:]...)
		}
		code, out, errs := runCLI(t, args...)
		if code != exitOK {
			t.Fatalf("perfls %s: exit %d\n%s\n%s", strings.Join(args, " "), code, out, errs)
		}
		var doc report.CheckDocument
		if slices.Contains(args, "json") && (json.Unmarshal([]byte(out), &doc) != nil || doc.Summary.Satisfied+doc.Summary.Undecided != 2) {
			t.Errorf("perfls %s: want the formula's 2 instances satisfied or undecided:\n%s\n%s", strings.Join(args, " "), out, errs)
		}
	}
	for _, f := range []string{"perfls.xml", filepath.Join("perfls-report", "index.html")} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("the CI command wrote no %s: %v", f, err)
		}
	}
}
