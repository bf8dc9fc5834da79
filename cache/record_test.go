package cache

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/perfls/perfls/analysis/verdict"
)

func TestVerdictsReplaceMergesByMethod(t *testing.T) {
	v := OpenVerdicts(t.TempDir())
	if recs, err := v.Load(); err != nil || len(recs) != 0 {
		t.Fatalf("empty record: %v %v", recs, err)
	}
	a := verdict.MethodResult{File: "/p/A.java", Class: "p.A", Method: "m", Params: []string{"int"}, CheckedAt: time.Unix(1, 0).UTC(),
		Instances: []verdict.InstanceResult{{Formula: "f", Outcome: verdict.Satisfied}}}
	b := verdict.MethodResult{File: "/p/B.java", Class: "p.B", Method: "m", CheckedAt: time.Unix(1, 0).UTC()}
	if err := v.Replace([]verdict.MethodResult{a, b}); err != nil {
		t.Fatal(err)
	}
	a.Instances[0].Outcome = verdict.Violated
	if err := v.Replace([]verdict.MethodResult{a}); err != nil {
		t.Fatal(err)
	}
	recs, err := v.ForFile("/p/A.java")
	if err != nil || len(recs) != 1 || recs[0].Instances[0].Outcome != verdict.Violated {
		t.Errorf("A after replace: %+v %v", recs, err)
	}
	if all, _ := v.Load(); len(all) != 2 {
		t.Errorf("B was lost: %+v", all)
	}
}

func TestCorruptRecordIsReportedAndReplaced(t *testing.T) {
	v := OpenVerdicts(t.TempDir())
	if err := os.WriteFile(v.Path(), []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := v.Load(); err == nil || !strings.Contains(err.Error(), v.Path()) {
		t.Errorf("corrupt record: err = %v, want one naming the file", err)
	}
	if err := v.Replace([]verdict.MethodResult{{File: "/p/A.java", Class: "p.A", Method: "m"}}); err != nil {
		t.Fatal(err)
	}
	if recs, err := v.Load(); err != nil || len(recs) != 1 {
		t.Errorf("after replacing a corrupt record: %+v %v", recs, err)
	}
}
