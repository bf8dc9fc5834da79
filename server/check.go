package server

import (
	"context"
	"fmt"
	"strings"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/perfls/perfls/analysis/verdict"
)

// CheckRequest asks a Checker to measure and decide the formulas of one
// annotated method.
type CheckRequest struct {
	Root   string // project directory: the workspace root
	File   string // the Java file declaring the method
	Class  string // binary name
	Method string
	Params []string // erased parameter types
}

// Checker measures and decides formulas: the server's door to the
// measurement service. It records the verdicts it returns (so hovers and
// other editors see them) and reports progress through report.
type Checker interface {
	Check(ctx context.Context, req CheckRequest, report func(message string)) ([]verdict.MethodResult, error)
}

// startCheck runs a check in the background. The job belongs to the server:
// it is cancelled on shutdown, or by the user from the progress item.
func (s *server) startCheck(ctx context.Context, args MethodArgs) {
	jobCtx, cancel := context.WithCancel(s.jobsCtx)
	label := args.Class + "#" + args.Method
	wd := s.startProgress(ctx, "perfls: checking "+label, cancel)
	s.jobs.Add(1)
	go func() {
		defer s.jobs.Done()
		defer cancel()
		req := CheckRequest{
			Root: s.root(), File: uri.URI(args.URI).Filename(),
			Class: args.Class, Method: args.Method, Params: args.Params,
		}
		results, err := s.opts.Checker.Check(jobCtx, req, func(msg string) { wd.report(jobCtx, msg) })
		if err != nil {
			wd.end(jobCtx, "failed")
			s.client.ShowMessage(context.WithoutCancel(jobCtx), &protocol.ShowMessageParams{
				Type: protocol.MessageTypeError, Message: fmt.Sprintf("perfls: checking %s failed: %v", label, err),
			})
			return
		}
		wd.end(jobCtx, summarize(results))
		s.setResults(req.File, results)
		if doc := s.snapshot(args.URI); doc != nil {
			s.publishDiagnostics(context.WithoutCancel(jobCtx), doc)
		}
		s.refreshCodeLenses(context.WithoutCancel(jobCtx))
	}()
}

func summarize(results []verdict.MethodResult) string {
	counts := map[verdict.Outcome]int{}
	for _, r := range results {
		for _, in := range r.Instances {
			counts[in.Outcome]++
		}
	}
	return fmt.Sprintf("%d satisfied, %d violated, %d undecided", counts[verdict.Satisfied], counts[verdict.Violated], counts[verdict.Undecided])
}

// setResults replaces the in-memory verdicts of the methods in results.
func (s *server) setResults(file string, results []verdict.MethodResult) {
	s.mu.Lock()
	defer s.mu.Unlock()
	old := s.results[file]
	var merged []verdict.MethodResult
	for _, o := range old {
		replaced := false
		for _, r := range results {
			replaced = replaced || sameMethod(o, r)
		}
		if !replaced {
			merged = append(merged, o)
		}
	}
	s.results[file] = append(merged, results...)
}

func sameMethod(a, b verdict.MethodResult) bool {
	return a.Class == b.Class && a.Method == b.Method && strings.Join(a.Params, ",") == strings.Join(b.Params, ",")
}

// syncResults reloads the recorded verdicts when any process recorded new
// ones (a CLI check, another editor), so every window shows the latest. One
// small query per call keeps it cheap enough for every publish and hover.
func (s *server) syncResults() {
	if s.opts.Verdicts == nil {
		return
	}
	ctx := context.Background()
	rev, err := s.opts.Verdicts.VerdictsRevision(ctx)
	if err != nil {
		s.logf("verdicts: %v", err)
		return
	}
	s.mu.Lock()
	same := rev == s.recordRev
	s.mu.Unlock()
	if same {
		return
	}
	recs, err := s.opts.Verdicts.Verdicts(ctx)
	if err != nil {
		s.logf("verdicts: %v", err)
		return
	}
	byFile := map[string][]verdict.MethodResult{}
	for _, r := range recs {
		byFile[r.File] = append(byFile[r.File], r)
	}
	s.mu.Lock()
	s.results, s.recordRev = byFile, rev
	s.mu.Unlock()
}

func (s *server) resultsOf(file string) []verdict.MethodResult {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.results[file]
}

func (s *server) root() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rootDir
}

// refreshCodeLenses asks the client to re-request lenses so their titles show
// new results; only clients that declared refreshSupport get asked.
func (s *server) refreshCodeLenses(ctx context.Context) {
	s.mu.Lock()
	ok := s.clientCaps.Workspace != nil && s.clientCaps.Workspace.CodeLens != nil && s.clientCaps.Workspace.CodeLens.RefreshSupport
	s.mu.Unlock()
	if ok {
		if _, err := s.conn.Call(ctx, protocol.MethodCodeLensRefresh, nil, nil); err != nil {
			s.logf("codeLens/refresh: %v", err)
		}
	}
}
