package javasrc

import (
	"archive/zip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLargeJDKFilesMatchWholeParse parses every large file of the JDK's
// java.base sources (PERFLS_JDK_SRCZIP, else $JAVA_HOME/lib/src.zip;
// skipped when neither exists) as Parse does (bodies left out, two halves) and whole, and
// expects the same model for every file the whole parse finds no syntax
// error in: real-world Java for the lexical guesses of split.go and
// lazy.go.
func TestLargeJDKFilesMatchWholeParse(t *testing.T) {
	zipPath := os.Getenv("PERFLS_JDK_SRCZIP")
	if zipPath == "" && os.Getenv("JAVA_HOME") != "" {
		zipPath = filepath.Join(os.Getenv("JAVA_HOME"), "lib", "src.zip")
	}
	if _, err := os.Stat(zipPath); zipPath == "" || err != nil {
		t.Skip("no JDK sources: set PERFLS_JDK_SRCZIP to a JDK's lib/src.zip")
	}
	zr, err := zip.OpenReader(zipPath)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	files, fast := 0, 0
	for _, zf := range zr.File {
		if !strings.HasPrefix(zf.Name, "java.base/") || !strings.HasSuffix(zf.Name, ".java") || zf.UncompressedSize64 < uint64(splitMinBytes) {
			continue
		}
		rc, err := zf.Open()
		if err != nil {
			t.Fatal(err)
		}
		src, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		files++
		want := parseWhole(t, string(src))
		if len(want.SyntaxErrors) != 0 {
			continue
		}
		if plan, ok := planSplit(src); ok {
			if got, ok := parseWithPlan(t, string(src), plan); ok {
				fast++
				sameModel(t, zf.Name, got, want)
			}
		}
	}
	t.Logf("%d large files, %d parsed in parts or with bodies left out", files, fast)
	if fast < files/2 {
		t.Errorf("only %d of %d large files avoided a whole parse", fast, files)
	}
}
