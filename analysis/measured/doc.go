// Package measured holds perfls's measured data, with the rules that read
// it and need no I/O: what was asked (Request, Resolved, Arg), what one
// forked JVM reported (Fork, with its process-clock tick and drift), the
// outcome of a request (Result) and where it ran (Environment), its summary
// (Summarize), a counting fork's calls (CallCounts), and how a fork or a
// compilation failed (WorkloadError, CompilerMessage). measure, which runs
// the JVMs, produces it; the analysis packages read it without depending on
// measure. How methods are named and matched is analysis/methodspec.
package measured
