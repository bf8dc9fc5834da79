package profile

import (
	"encoding/json"
	"math"
	"os"
	"testing"
)

// TestTrendAgainstSciPy checks the Mann–Kendall statistic and the Theil–Sen
// line against SciPy (testdata/gen_trend.py): S from SciPy's tau-b, the
// uncorrected z from its asymptotic p-value, slope and intercept.
func TestTrendAgainstSciPy(t *testing.T) {
	data, err := os.ReadFile("testdata/trend.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Name             string
		Y                []float64
		Tau, Z           float64
		Slope, Intercept float64
	}
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		tr, ok := trendOf(c.Y)
		if !ok {
			t.Fatalf("%s: no trend", c.Name)
		}
		n := float64(len(c.Y))
		n0 := n * (n - 1) / 2
		// tau-b = S / sqrt(n0 (n0 − n2)), n2 the pairs tied in y.
		counts := map[float64]float64{}
		for _, v := range c.Y {
			counts[v]++
		}
		n2 := 0.0
		for _, k := range counts {
			n2 += k * (k - 1) / 2
		}
		wantS := c.Tau * math.Sqrt(n0*(n0-n2))
		if math.Abs(tr.S-wantS) > 1e-6 {
			t.Errorf("%s: S = %v, SciPy's tau gives %v", c.Name, tr.S, wantS)
		}
		if z := tr.S / math.Sqrt(tr.VarS); math.Abs(z-c.Z) > 1e-6*math.Max(1, math.Abs(c.Z)) {
			t.Errorf("%s: uncorrected z = %v, SciPy %v", c.Name, z, c.Z)
		}
		if math.Abs(tr.Slope-c.Slope) > 1e-9*math.Max(1, math.Abs(c.Slope)) || math.Abs(tr.Intercept-c.Intercept) > 1e-9*math.Max(1, math.Abs(c.Intercept)) {
			t.Errorf("%s: Theil–Sen %v + %v·i, SciPy %v + %v·i", c.Name, tr.Intercept, tr.Slope, c.Intercept, c.Slope)
		}
		// The continuity-corrected one-sided p-value used by the detector.
		corr := (tr.S - math.Copysign(1, tr.S)) / math.Sqrt(tr.VarS)
		if tr.S == 0 {
			corr = 0
		}
		if want := 0.5 * math.Erfc(corr/math.Sqrt2); math.Abs(tr.P-want) > 1e-12 {
			t.Errorf("%s: p = %v, want %v", c.Name, tr.P, want)
		}
	}
}

// blockProfile: n threads blocked on one monitor for blocked ns in total,
// each running `running` samples.
func blockProfile(t *testing.T, threads int, blocked int64, running int64, events int64) *Profile {
	b := newBuilder()
	run := b.frame("java.lang.Thread", "run", "()V", 840, 11, 0)
	sync := b.frame("pkg.T", "add", "([II)V", 43, 12, 1)
	work := b.frame("pkg.T", "weigh", "(I)J", 52, 9, 1)
	for i := 0; i < threads; i++ {
		id := int64(10 + i)
		b.thread(id, "worker", false)
		b.stack(KindEnter, "java.lang.Object", id, events/int64(threads), blocked/int64(threads), sync, run)
		b.stack(KindCPU, "", id, running, running, work, sync, run)
	}
	b.thread(1, "main", true)
	b.iterations(flat(20, 1e6)...)
	return mustNew(t, b.s, []Declaration{{File: "T.java", Class: "pkg.T", StartLine: 1, EndLine: 60, NameLine: 1}}, Target{})
}

func TestOneLaneBridge(t *testing.T) {
	th := DefaultThresholds()
	// 4 threads, 1 s blocked in all, 150 ms running each (1 ms samples).
	fs := blockProfile(t, 4, 1e9, 150, 2000).findOneLaneBridge(th)
	if len(fs) != 1 || fs[0].Line != 43 || fs[0].File != "T.java" || fs[0].Evidence["monitor_class"] != "java.lang.Object" {
		t.Fatalf("findings %+v", fs)
	}
	if s := fs[0].Evidence["blocked_share"].(float64); math.Abs(s-1e9/(1e9+600e6)) > 1e-3 {
		t.Errorf("blocked share %v", s)
	}
	// One thread alone cannot be a bridge; a little blocking is no bridge.
	if fs := blockProfile(t, 1, 1e9, 150, 2000).findOneLaneBridge(th); len(fs) != 0 {
		t.Errorf("one thread fired: %+v", fs)
	}
	if fs := blockProfile(t, 4, 50e6, 500, 2000).findOneLaneBridge(th); len(fs) != 0 {
		t.Errorf("2.5 %% blocked fired: %+v", fs)
	}
	if fs := blockProfile(t, 4, 1e9, 150, 4).findOneLaneBridge(th); len(fs) != 0 {
		t.Errorf("4 events fired: %+v", fs)
	}
}

// allocProfile: one site allocating bytesPerOp of class cls, at nsPerOp.
func allocProfile(t *testing.T, cls string, bytesPerOp, nsPerOp float64) *Profile {
	b := newBuilder()
	h := b.harness()
	valueOf := b.frame("java.lang.Long", "valueOf", "(J)Ljava/lang/Long;", 1211, 20, 0)
	site := b.frame("pkg.S", "sum", "([I)J", 20, 15, 1)
	b.iterations(flat(20, nsPerOp)...)
	b.stack(KindAlloc, cls, 1, 100, int64(bytesPerOp*20*1000), valueOf, site, h)
	b.stack(KindCPU, "", 1, 600, 600, site, h)
	b.thread(1, "main", true)
	b.s.GC = GC{Count: 30, PauseNs: 5e6, HeapAfterFirst: 2e6, HeapAfterLast: 2.1e6}
	return mustNew(t, b.s, []Declaration{{File: "S.java", Class: "pkg.S", Method: "sum", Params: []string{"int[]"}, StartLine: 17, EndLine: 23, NameLine: 17}}, Target{Class: "pkg.S", Name: "sum"})
}

func TestExcessiveAllocation(t *testing.T) {
	th := DefaultThresholds()
	p := allocProfile(t, "java.lang.Long", 16000, 3000)
	r := p.Report(th)
	f := findingOf(r.Findings, FindingAllocation)
	if f == nil || f.Line != 20 || f.File != "S.java" || f.Evidence["top_class"] != "java.lang.Long" || f.Evidence["short_lived"] != true {
		t.Fatalf("findings %+v", r.Findings)
	}
	if len(r.Allocations) != 1 || r.Allocations[0].Line != 20 || math.Abs(r.Allocations[0].BytesPerOp-16000) > 1 || r.Allocations[0].BoxedBytesPerOp != r.Allocations[0].BytesPerOp {
		t.Errorf("allocations %+v", r.Allocations)
	}
	// The measuring thread's exact allocation calibrates the sampled weights.
	cal := allocProfile(t, "java.lang.Long", 24000, 3000)
	for i := range cal.s.Iterations {
		cal.s.Iterations[i].AllocBytes = 16000 * 1000
	}
	cal = mustNew(t, cal.s, cal.attr.decls, cal.target)
	if r := cal.Report(th); !r.AllocCalibrated || math.Abs(r.BytesPerOp-16000) > 1e-6 || math.Abs(r.Allocations[0].BytesPerOp-16000) > 1e-6 {
		t.Errorf("calibrated: %v, %v B/op, sites %+v", r.AllocCalibrated, r.BytesPerOp, r.Allocations)
	}
	// Buffers (arrays) are not churn, whatever their size.
	if f := findingOf(allocProfile(t, "[B", 1<<20, 3000).Report(th).Findings, FindingAllocation); f != nil {
		t.Errorf("byte[] fired: %+v", f)
	}
	// A few objects per operation are no churn; a slow method's churn costs nothing.
	if f := findingOf(allocProfile(t, "java.lang.Long", 256, 3000).Report(th).Findings, FindingAllocation); f != nil {
		t.Errorf("256 B/op fired: %+v", f)
	}
	if f := findingOf(allocProfile(t, "java.lang.Long", 1024, 50e6).Report(th).Findings, FindingAllocation); f != nil {
		t.Errorf("1 KB per 50 ms fired: %+v", f)
	}
}

// TestAllocationSharesFollowSampleCounts: with throttling, a sample's weight
// is the bytes since the thread's previous emitted sample, so a rare sample
// can carry most of the weight (seen with oracle.Caching#soft: 15 of 653
// samples, 53 % of the weight, for 4 % of the bytes). Sites are split by
// sample counts instead.
func TestAllocationSharesFollowSampleCounts(t *testing.T) {
	b := newBuilder()
	h := b.harness()
	arr := b.frame("pkg.C", "soft", "(I)I", 33, 2, 0)
	ref := b.frame("pkg.C", "soft", "(I)I", 35, 20, 0)
	b.stack(KindAlloc, "[B", 1, 638, 3_750_000_000, arr, h)
	b.stack(KindAlloc, "java.lang.ref.SoftReference", 1, 15, 4_290_000_000, ref, h)
	b.thread(1, "main", true)
	b.iterations(flat(20, 100)...)
	for i := range b.s.Iterations {
		b.s.Iterations[i].AllocBytes = 1080 * 1000
	}
	r := mustNew(t, b.s, []Declaration{{File: "C.java", Class: "pkg.C", StartLine: 1, EndLine: 50}}, Target{}).Report(DefaultThresholds())
	if len(r.Allocations) != 2 || r.Allocations[0].Line != 33 || math.Abs(r.Allocations[0].BytesPerOp-1080*638.0/653) > 1e-6 || math.Abs(r.BytesPerOp-1080) > 1e-6 {
		t.Errorf("allocations %+v, %v B/op", r.Allocations, r.BytesPerOp)
	}
	if f := findingOf(r.Findings, FindingAllocation); f != nil {
		t.Errorf("fired: %+v", f)
	}
}

// tripProfile: the measuring thread waits `trips` times per operation from a
// call at line 72 (inside a loop or not) for waitShare of its time, while
// another thread computes workNs in all.
func tripProfile(t *testing.T, inLoop bool, tripsPerOp, waitShare float64, workSamples int64) *Profile {
	b := newBuilder()
	h := b.harness()
	l := 0
	if inLoop {
		l = 1
	}
	call := b.frame("pkg.O", "value", "([Ljava/lang/String;)J", 72, 30, l)
	lookup := b.frame("pkg.O$Service", "lookup", "([Ljava/lang/String;)[J", 45, 20, 0)
	get := b.frame("java.util.concurrent.CompletableFuture", "get", "()Ljava/lang/Object;", 2070, 10, 0)
	b.iterations(flat(20, 2e6)...) // 20 × 1000 ops of 2 ms
	wall := 20 * 1000 * 2e6
	b.stack(KindPark, "java.util.concurrent.CompletableFuture$Signaller", 1, int64(tripsPerOp*20*1000), int64(waitShare*wall), get, lookup, call, h)
	b.thread(1, "main", true)
	if workSamples > 0 {
		serve := b.frame("pkg.O$Service", "serve", "()V", 60, 8, 1)
		b.stack(KindCPU, "", 2, workSamples, workSamples, serve)
		b.thread(2, "service", false)
	}
	return mustNew(t, b.s, []Declaration{{File: "O.java", Class: "pkg.O", StartLine: 1, EndLine: 90, NameLine: 1},
		{File: "O.java", Class: "pkg.O$Service", StartLine: 20, EndLine: 60, NameLine: 20}}, Target{Class: "pkg.O", Name: "value"})
}

func TestEmptySemiTrucks(t *testing.T) {
	th := DefaultThresholds()
	fs := tripProfile(t, true, 20, 0.9, 0).findSemiTrucks(th)
	if len(fs) != 1 || fs[0].Line != 72 || fs[0].Kind != FindingSemiTrucks {
		t.Fatalf("findings %+v", fs)
	}
	if got := fs[0].Evidence["trips_per_op"].(float64); got != 20 {
		t.Errorf("trips per op %v", got)
	}
	if fs := tripProfile(t, false, 20, 0.9, 0).findSemiTrucks(th); len(fs) != 0 {
		t.Errorf("a call outside loops fired: %+v", fs)
	}
	if fs := tripProfile(t, true, 1, 0.9, 0).findSemiTrucks(th); len(fs) != 0 {
		t.Errorf("one trip per operation fired: %+v", fs)
	}
	if fs := tripProfile(t, true, 20, 0.1, 0).findSemiTrucks(th); len(fs) != 0 {
		t.Errorf("10 %% waiting fired: %+v", fs)
	}
	// Waiting for workers that compute (36 s of 40 s waited): fork-join.
	if fs := tripProfile(t, true, 4, 0.9, 30_000).findSemiTrucks(th); len(fs) != 0 {
		t.Errorf("waiting for busy workers fired: %+v", fs)
	}
}

func TestHotFoldsLibraryFrames(t *testing.T) {
	b := newBuilder()
	h := b.harness()
	line23 := b.frame("pkg.V", "visit", "(Ljava/lang/String;)I", 23, 9, 0)
	line22 := b.frame("pkg.V", "visit", "(Ljava/lang/String;)I", 22, 3, 0)
	eq := b.frame("java.lang.String", "equals", "(Ljava/lang/Object;)Z", 1832, 20, 0)
	next := b.frame("java.util.ArrayList$Itr", "next", "()Ljava/lang/Object;", 974, 5, 0)
	freq := b.frame("java.util.Collections", "frequency", "(Ljava/util/Collection;Ljava/lang/Object;)I", 5498, 30, 1)
	b.stack(KindCPU, "", 1, 700, 700, eq, freq, line23, h)
	b.stack(KindCPU, "", 1, 200, 200, next, freq, line23, h)
	b.stack(KindCPU, "", 1, 50, 50, line23, h)
	b.stack(KindCPU, "", 1, 40, 40, line22, h)
	b.stack(KindCPU, "", 1, 10, 10, h) // the harness itself
	b.iterations(flat(20, 1000)...)
	p := mustNew(t, b.s, []Declaration{{File: "V.java", Class: "pkg.V", Method: "visit", Params: []string{"String"}, StartLine: 20, EndLine: 25, NameLine: 20}}, Target{Class: "pkg.V", Name: "visit"})
	r := p.Report(DefaultThresholds())
	if r.Samples != 1000 || len(r.Hot) != 2 {
		t.Fatalf("samples %d, hot %+v", r.Samples, r.Hot)
	}
	if h := r.Hot[0]; h.Line != 23 || h.Share != 0.95 || h.OwnShare != 0.05 || h.File != "V.java" || math.Abs(h.NsPerOp-950) > 1e-9 {
		t.Errorf("hot[0] %+v", h)
	}
	if len(r.HotLibrary) < 2 || r.HotLibrary[0].Method != "java.lang.String#equals(java.lang.Object)" || r.HotLibrary[0].Share != 0.7 ||
		r.HotLibrary[0].Via == nil || r.HotLibrary[0].Via.Line != 23 || r.HotLibrary[0].File != "" {
		t.Errorf("hot library %+v", r.HotLibrary)
	}
	if ls := r.LineShares("V.java"); ls[23] != 0.95 || ls[22] != 0.04 {
		t.Errorf("line shares %v", ls)
	}
	if tree := p.CallTree(KindCPU); tree.Method != "pkg.V#visit(java.lang.String)" || tree.Total != 990 || tree.Self != 90 ||
		len(tree.Children) != 1 || tree.Children[0].Total != 900 || tree.Lines[23] != 950 {
		t.Errorf("call tree %+v", tree)
	}
}
