package server_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf16"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/perfls/perfls/analysis/verdict"
	"github.com/perfls/perfls/cache"
	"github.com/perfls/perfls/internal/lsptest"
	"github.com/perfls/perfls/server"
)

const javaSource = `package demo;

import dev.perfls.SPL;

public class Demo {
    // The comment before the formula puts non-ASCII text on the same line.
    @SPL(/* café 😀 */ "for n in {10, 20} SELF[gen](n) <= demo.Demo#slow[gen](n")
    public static int fast(int[] a) { return a.length; }

    public static int slow(int[] a) { return a.length; }

    public static Iterable<Object[]> gen(int n) { return null; }
}
`

func TestSessionDiagnosticsHoverShutdown(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "Demo.java")
	verdicts, _, err := cache.OpenStore(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer verdicts.Close()
	err = verdicts.ReplaceVerdicts(context.Background(), []verdict.MethodResult{{
		File: path, Class: "demo.Demo", Method: "fast", Params: []string{"int[]"},
		CheckedAt: time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC),
		Instances: []verdict.InstanceResult{{
			Formula: "…", Instance: "n=10", Outcome: verdict.Violated,
			Comparisons: []verdict.ComparisonResult{{
				Text: "SELF[gen](10) <= demo.Demo#slow[gen](10)", Outcome: verdict.Violated,
				Evidence: verdict.Evidence{
					Left:  verdict.SideEvidence{MeanNs: 1520, Samples: 90, Forks: 3},
					Right: verdict.SideEvidence{MeanNs: 310, Samples: 90, Forks: 3},
					Ratio: 4.9, P: 1e-30, Alpha: 0.05,
				},
			}},
		}},
	}})
	if err != nil {
		t.Fatal(err)
	}

	fc := lsptest.Start(t, server.Options{Verdicts: verdicts})
	var init protocol.InitializeResult
	fc.Call(t, protocol.MethodInitialize, &protocol.InitializeParams{RootURI: uri.File(dir)}, &init)
	if init.Capabilities.HoverProvider != true {
		t.Errorf("hover not advertised: %+v", init.Capabilities)
	}
	fc.Notify(t, protocol.MethodInitialized, &protocol.InitializedParams{})

	u := uri.File(path)
	fc.Notify(t, protocol.MethodTextDocumentDidOpen, &protocol.DidOpenTextDocumentParams{
		TextDocument: protocol.TextDocumentItem{URI: u, LanguageID: "java", Version: 1, Text: javaSource},
	})
	diags := fc.AwaitDiagnostics(t, u, 1)
	if len(diags) == 0 {
		t.Fatal("no diagnostic for the unclosed argument list")
	}
	// The formula lacks ")" before its closing quote on line 7 (0-based 6).
	d := diags[0]
	if d.Range.Start.Line != 6 || d.Severity != protocol.DiagnosticSeverityError {
		t.Errorf("diagnostic %+v, want an error on line 7", d)
	}
	line := strings.Split(javaSource, "\n")[6]
	quote := len(utf16.Encode([]rune(line[:strings.Index(line, `n")`)+1]))) // UTF-16 column of the closing quote
	if int(d.Range.Start.Character) != quote {
		t.Errorf("diagnostic at character %d, want %d (the end of the formula): %s", d.Range.Start.Character, quote, d.Message)
	}

	// Fixing the formula clears the diagnostics (an empty array, not null).
	fixed := strings.Replace(javaSource, `[gen](n")`, `[gen](n)")`, 1)
	fc.Replace(t, u, 2, fixed)
	if diags := fc.AwaitDiagnostics(t, u, 2); len(diags) != 0 {
		t.Errorf("diagnostics after the fix: %+v", diags)
	}

	var hover protocol.Hover
	fc.Call(t, protocol.MethodTextDocumentHover, &protocol.HoverParams{
		TextDocumentPositionParams: protocol.TextDocumentPositionParams{
			TextDocument: protocol.TextDocumentIdentifier{URI: u},
			Position:     protocol.Position{Line: 7, Character: 23}, // on "fast"
		},
	}, &hover)
	md := hover.Contents.Value
	for _, want := range []string{"demo.Demo#fast(int[])", "for n in {10, 20}", "| n=10 | violated | 1.52 µs/op | 310 ns/op | 4.9 |"} {
		if !strings.Contains(md, want) {
			t.Errorf("hover lacks %q:\n%s", want, md)
		}
	}

	// Hover elsewhere is empty, not an error.
	var none *protocol.Hover
	fc.Call(t, protocol.MethodTextDocumentHover, &protocol.HoverParams{
		TextDocumentPositionParams: protocol.TextDocumentPositionParams{
			TextDocument: protocol.TextDocumentIdentifier{URI: u},
			Position:     protocol.Position{Line: 0, Character: 3},
		},
	}, &none)
	if none != nil {
		t.Errorf("hover on the package line: %+v", none)
	}

	fc.Call(t, protocol.MethodShutdown, nil, nil)
	fc.Notify(t, protocol.MethodExit, nil)
}

func TestRequestsBeforeInitializeAreRefused(t *testing.T) {
	fc := lsptest.Start(t, server.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var hover protocol.Hover
	_, err := fc.Conn.Call(ctx, protocol.MethodTextDocumentHover, &protocol.HoverParams{}, &hover)
	if err == nil || !strings.Contains(err.Error(), "not initialized") {
		t.Errorf("hover before initialize: err = %v", err)
	}
}
