package input

import "fmt"

// Limit is a kind of input and the most bytes perfls reads of it.
type Limit struct {
	Max  int64
	What string // what such a file is, for messages: "a model file"
	Hint string // what to do with a larger one
}

// The caps, generous for real inputs: they bound the memory a wrong or
// hostile file can take (a model named /dev/zero grew to 24 GB before),
// not what a real one needs. Java sources have theirs in javasrc
// (MaxSourceBytes, 4 MiB: larger files are reported, not parsed).
var (
	// Model is a performance model, written by perfls model: a few
	// kilobytes per operation.
	Model = Limit{16 << 20, "a model file", "perfls model writes a few kilobytes: is it the file perfls model wrote?"}
	// Results are recorded results for perfls evaluate: JMH's JSON (-rf
	// json) or perfls's measurement JSON. A JMH run of a large suite is a
	// few megabytes.
	Results = Limit{256 << 20, "recorded results", "keep only the benchmarks the formula names (e.g. with jq) or split the file"}
	// CSVRun is one run of perfls ensemble's CSV form; 10⁶ rows of ten
	// counters are about 100 MB.
	CSVRun = Limit{256 << 20, "a CSV run", "group the rows into fewer, longer intervals before exporting, or drop counters"}
	// Env is a run's NAME.env: a few key=value lines.
	Env = Limit{1 << 20, "an environment file", "it holds a few key=value lines (cores=8, jvm=21)"}
	// SPL is a standalone .spl file of formulas: as large as a Java source
	// may be (javasrc.MaxSourceBytes).
	SPL = Limit{4 << 20, "a .spl file", "split the formulas over several files"}
)

// The caps of workspace files (ReadRegular): what a folder holds.
var (
	// Config is a perfls.json: a few hundred bytes in practice.
	Config = Limit{1 << 20, "a perfls.json", "it holds a few settings"}
	// ClasspathFile is perfls.json's "classpathFile": one line per jar.
	ClasspathFile = Limit{16 << 20, "a classpath file", "list the jars the sources need"}
	// BuildFile is a pom.xml, build.gradle or settings file; the largest
	// poms of real projects are a few hundred kilobytes.
	BuildFile = Limit{16 << 20, "a build file", "is it the project's build file?"}
	// POM is a pom in the local Maven repository.
	POM = Limit{4 << 20, "a pom", "is the local repository intact?"}
	// GitFile is a file of a git directory: HEAD, a ref, packed-refs.
	GitFile = Limit{64 << 20, "a git directory's file", "is the .git directory intact?"}
	// JavaSource is a Java source read from a workspace (javasrc.MaxSourceBytes).
	JavaSource = Limit{4 << 20, "a Java source", "larger files are reported, not parsed"}
)

// TooLargeError says an input holds more than its limit.
type TooLargeError struct {
	Path  string
	Limit Limit
	Size  int64 // the file's size when known, else -1
}

func (e *TooLargeError) Error() string {
	size := ""
	if e.Size >= 0 {
		size = Bytes(e.Size) + ", "
	}
	return fmt.Sprintf("%s: %slarger than %s, the most perfls reads of %s: %s", e.Path, size, Bytes(e.Limit.Max), e.Limit.What, e.Limit.Hint)
}

// Bytes renders a size in binary units: "16 MiB", "1.5 GiB", "300 B".
func Bytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	v, i := float64(n), -1
	for v >= unit && i < 5 {
		v /= unit
		i++
	}
	s := fmt.Sprintf("%.1f", v)
	if v == float64(int64(v)) {
		s = fmt.Sprintf("%d", int64(v))
	}
	return s + " " + string("KMGTPE"[i]) + "iB"
}
