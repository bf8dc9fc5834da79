package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestEnsembleCommand(t *testing.T) {
	ex := filepath.Join("..", "..", "analysis", "ensemble", "csvrun", "testdata", "example")
	var out, errb bytes.Buffer
	code := run(context.Background(), []string{"ensemble", "--history", filepath.Join(ex, "history"), "--new", filepath.Join(ex, "new"), "--format", "json"}, nil, &out, &errb)
	if code != 1 {
		t.Fatalf("exit %d, want 1 (flagged); stderr %s", code, errb.String())
	}
	var rep struct {
		Flagged []struct {
			Counter  string
			Score    float64
			Severity float64
			Rules    []struct{ Rule string }
		}
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, f := range rep.Flagged {
		got[f.Counter] = f.Score > 0.5 && f.Severity > 0 && len(f.Rules) > 0
	}
	if !got["cpu_util"] {
		t.Errorf("the busy loop's cpu_util is not flagged with score, severity and rules: %s", out.String())
	}
}

func TestEnsembleCommandErrors(t *testing.T) {
	bad := t.TempDir()
	os.WriteFile(filepath.Join(bad, "r.csv"), []byte("time,cpu\n0,1\n1,oops\n"), 0o644)
	os.WriteFile(filepath.Join(bad, "r.env"), []byte("cores=4\n"), 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"ensemble"}, "want a history directory"},
		{[]string{"ensemble", "--history", bad, "--new", bad}, "r.csv:3: counter cpu: \"oops\" is not a finite number"},
		{[]string{"ensemble", "--history", bad, "--new", bad, "--method", "vote"}, "--method"},
	} {
		var out, errb bytes.Buffer
		if code := run(context.Background(), c.args, nil, &out, &errb); code != 2 || !strings.Contains(errb.String(), c.want) {
			t.Errorf("%v: exit %d, stderr %q, want 2 and %q", c.args, code, errb.String(), c.want)
		}
	}
}
