package profile

// Thresholds are the documented limits of the anti-pattern detectors.
// Every relative limit is paired with an absolute one (seed 003's lesson:
// 3 against 4 calls is +33 % and means nothing). Zero fields take the
// defaults (DefaultThresholds); the JSON evidence of every finding repeats
// the thresholds it passed.
type Thresholds struct {
	// MinSamples is the fewest execution samples of the measured method for
	// any sample-based finding (call-tree detectors, the ramp's line).
	// Default 50: at 1 ms sampling, 50 ms of the method's time.
	MinSamples int64

	// Ramp: the cost per call grows with the calls already made, decided
	// on the ramp control (ramp.go): two fresh copies of the code measured
	// alternately, one making twice the other's calls. Mann–Kendall's test
	// of log(A's over B's time per call) against the rounds must reject
	// "the cost does not depend on the calls made" one-sided at RampAlpha —
	// the rate of false ramps per profile, whatever the machine's load does
	// (it cancels in the ratio) — over at least RampMinRounds rounds, and
	// the Theil–Sen estimate of the growth over A's lead must reach
	// RampMinGrowth, the smallest ramp worth a diagnostic (not a guard
	// against noise). Defaults α = 0.001, 10 rounds, 5 %.
	RampMinRounds int
	RampAlpha     float64
	RampMinGrowth float64
	// RampSettledAlpha: a ramp is not decided when the fresh copy B got
	// faster against the profiled copy M over the rounds (Mann–Kendall,
	// one-sided, at this level): B's compilation had not settled, and a
	// copy that gets faster with its calls makes A, which made more, look
	// slower. A veto only removes findings, so it cannot raise the rate of
	// false ramps; default 0.05.
	RampSettledAlpha float64

	// One-lane bridge: at least BridgeMinThreads threads block on one
	// monitor (or one j.u.c. lock), and of the time those threads were
	// running or blocked on it, at least BridgeMinShare was blocked on it;
	// that monitor holds at least BridgeMinMonitorShare of all blocked
	// time; at least BridgeMinEvents blocking events. Defaults 2 threads,
	// 20 %, 50 %, 10 events.
	BridgeMinThreads      int
	BridgeMinShare        float64
	BridgeMinMonitorShare float64
	BridgeMinEvents       int64

	// Excessive allocation: churn of small objects (every allocation that
	// is not an array: boxed primitives, iterators, wrappers, strings) of
	// at least AllocMinChurnBytesPerOp per operation, making up at least
	// AllocMinChurnShare of the bytes allocated, at a rate of at least
	// AllocMinChurnRateMBs MB/s (so that it costs time). Arrays (buffers
	// the method needs, a result it returns) do not count towards churn.
	// Defaults 512 B/op (32 boxed values), 50 %, 100 MB/s. The message
	// calls it boxing when boxed primitives are at least AllocBoxingShare
	// of the churn (default 50 %).
	AllocMinChurnBytesPerOp float64
	AllocMinChurnShare      float64
	AllocMinChurnRateMBs    float64
	AllocBoxingShare        float64

	// Circuitous treasure hunt (hunt.go): a call made inside a loop of the
	// measured method (or of a project method it calls) leads to code that
	// loops again, holding at least CTHMinShare of the method's samples
	// (skipped when the measuring thread waits more than half the time);
	// AND the counts at two sizes n₁ < n₂ show a project method below the
	// call whose calls or loop passes per operation grow as n^b with
	// b ≥ 1 + CTHMinExponent, at least CTHMinPerElement per element at n₂:
	// the work per element grows with n. Defaults 50 %, 0.5 (per element at
	// least like √n: a repeated linear search gives b = 2, one index lookup
	// per element b ≤ 1.35), 1 per element.
	CTHMinShare      float64
	CTHMinExponent   float64
	CTHMinPerElement float64

	// Empty semi-trucks: a call made inside a loop of the measured method
	// (or of a project method it calls) waits for a round trip (park, wait,
	// sleep, socket or file I/O) at least ESTMinTripsPerOp times per
	// operation, those waits take at least ESTMinWaitShare of the
	// measuring thread's time, and the trips are mostly empty: the other
	// threads of the workload computed for at most ESTMaxWorkShare of the
	// waiting time (waiting for parallel workers that do the real work is
	// fork-join, not a round trip). Defaults 2 trips per operation, 25 %,
	// 50 %.
	ESTMinTripsPerOp float64
	ESTMinWaitShare  float64
	ESTMaxWorkShare  float64

	// Comparison with baselines: a callee of the measured method "grew"
	// when its share of the method's samples rose by at least
	// CompareMinPoints (absolute, in share units: 0.05 = 5 points) AND by at
	// least CompareMinRelative of the baseline share, AND a two-proportion
	// z-test rejects equal shares at CompareAlpha. The measured method's
	// sampled call subtree "grew" (circuitous treasure hunt, as seed 003
	// compares call-tree sizes) when it has at least CompareMinRelative more
	// distinct methods than the baselines' mean AND at least
	// CompareMinNodes more, with wall time per operation up by at least
	// CompareMinSlowdown. Defaults 5 points, 25 %, α = 0.01, 5 methods,
	// 10 %.
	CompareMinPoints   float64
	CompareMinRelative float64
	CompareAlpha       float64
	CompareMinNodes    float64
	CompareMinSlowdown float64
}

// DefaultThresholds returns the defaults documented on Thresholds.
func DefaultThresholds() Thresholds {
	return Thresholds{
		MinSamples:              50,
		RampMinRounds:           10,
		RampAlpha:               0.001,
		RampMinGrowth:           0.05,
		RampSettledAlpha:        0.05,
		BridgeMinThreads:        2,
		BridgeMinShare:          0.20,
		BridgeMinMonitorShare:   0.50,
		BridgeMinEvents:         10,
		AllocMinChurnBytesPerOp: 512,
		AllocMinChurnShare:      0.50,
		AllocMinChurnRateMBs:    100,
		AllocBoxingShare:        0.50,
		CTHMinShare:             0.50,
		CTHMinExponent:          0.5,
		CTHMinPerElement:        1,
		ESTMinTripsPerOp:        2,
		ESTMinWaitShare:         0.25,
		ESTMaxWorkShare:         0.50,
		CompareMinPoints:        0.05,
		CompareMinRelative:      0.25,
		CompareAlpha:            0.01,
		CompareMinNodes:         5,
		CompareMinSlowdown:      0.10,
	}
}

// withDefaults fills zero fields from DefaultThresholds.
func (t Thresholds) withDefaults() Thresholds {
	d := DefaultThresholds()
	setI := func(v *int64, dv int64) {
		if *v <= 0 {
			*v = dv
		}
	}
	setN := func(v *int, dv int) {
		if *v <= 0 {
			*v = dv
		}
	}
	setF := func(v *float64, dv float64) {
		if *v <= 0 {
			*v = dv
		}
	}
	setI(&t.MinSamples, d.MinSamples)
	setN(&t.RampMinRounds, d.RampMinRounds)
	setF(&t.RampAlpha, d.RampAlpha)
	setF(&t.RampMinGrowth, d.RampMinGrowth)
	setF(&t.RampSettledAlpha, d.RampSettledAlpha)
	setN(&t.BridgeMinThreads, d.BridgeMinThreads)
	setF(&t.BridgeMinShare, d.BridgeMinShare)
	setF(&t.BridgeMinMonitorShare, d.BridgeMinMonitorShare)
	setI(&t.BridgeMinEvents, d.BridgeMinEvents)
	setF(&t.AllocMinChurnBytesPerOp, d.AllocMinChurnBytesPerOp)
	setF(&t.AllocMinChurnShare, d.AllocMinChurnShare)
	setF(&t.AllocMinChurnRateMBs, d.AllocMinChurnRateMBs)
	setF(&t.AllocBoxingShare, d.AllocBoxingShare)
	setF(&t.CTHMinShare, d.CTHMinShare)
	setF(&t.CTHMinExponent, d.CTHMinExponent)
	setF(&t.CTHMinPerElement, d.CTHMinPerElement)
	setF(&t.ESTMinTripsPerOp, d.ESTMinTripsPerOp)
	setF(&t.ESTMinWaitShare, d.ESTMinWaitShare)
	setF(&t.ESTMaxWorkShare, d.ESTMaxWorkShare)
	setF(&t.CompareMinPoints, d.CompareMinPoints)
	setF(&t.CompareMinRelative, d.CompareMinRelative)
	setF(&t.CompareAlpha, d.CompareAlpha)
	setF(&t.CompareMinNodes, d.CompareMinNodes)
	setF(&t.CompareMinSlowdown, d.CompareMinSlowdown)
	return t
}
