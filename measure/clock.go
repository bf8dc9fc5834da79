package measure

import "math"

// ProcessClockTick recognises a coarse process CPU clock from one fork's
// per-sample figures (ProcCPUNsPerOp with ops operations a sample): Linux's
// JVMs read it with times(2), in ticks of 10 ms, so every sample's raw
// difference is a whole number of milliseconds. fine is true when some
// difference is not (a fine clock); otherwise tick is the smallest non-zero
// difference in ns, 0 when nothing ticked.
func ProcessClockTick(procNsPerOp []float64, ops int64) (tick float64, fine bool) {
	ops = max(ops, 1)
	for _, p := range procNsPerOp {
		raw := math.Round(p * float64(ops))
		if raw != 0 && math.Mod(raw, 1e6) != 0 {
			return 0, true
		}
		if raw > 0 && (tick == 0 || raw < tick) {
			tick = raw
		}
	}
	return tick, false
}
