package engine

import (
	"runtime"
	"strings"
	"testing"

	"github.com/perfls/perfls/measure"
)

func TestValidateOptions(t *testing.T) {
	ok := MeasureDefaults()
	notUsable := "processor 4096 is not one this process may use"
	if runtime.GOOS != "linux" {
		notUsable = "needs Linux"
	}
	if err := ValidateOptions(ok, 1); err != nil {
		t.Errorf("defaults: %v", err)
	}
	for _, c := range []struct {
		change func(*measure.Options)
		want   string
	}{
		{func(o *measure.Options) { o.Forks = 1 }, "forks must be ≥ 2"},
		{func(o *measure.Options) { o.SamplesPerFork = 1 }, "samples ≥ 2"},
		{func(o *measure.Options) { o.HeapMB = -1 }, "heap must be ≥ 0"},
		{func(o *measure.Options) { o.CPUs = "x" }, `processor list "x"`},
		{func(o *measure.Options) { o.CPUs = "4096" }, notUsable},
	} {
		o := ok
		c.change(&o)
		if err := ValidateOptions(o, 2); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", o, err, c.want)
		}
	}
}
