package measured

// Environment describes where a fork ran.
type Environment struct {
	JavaVersion, JavaVendor, VMName string
	VMVersion                       string
	JVMArgs                         []string // as the JVM reports them (RuntimeMXBean)
	OS, Arch                        string   // as the JVM reports them (os.name, os.arch)
	CPUModel                        string
	Cores                           int    // processors available to the JVM
	GC                              string // the collectors in use, e.g. "G1 Young Generation, G1 Old Generation"
	MaxHeapMB                       int    // the heap's limit (Runtime.maxMemory), MiB
	MemoryMB                        int    // the machine's physical memory, MiB; 0 when unknown
	Perfls                          string // the perfls version that measured (internal/version)
	// Commit is the project's git commit when it is a git work tree
	// (ProjectCommit): results are then comparable across commits and
	// machines (perfls history). Dirty says the tree had changes, so the
	// measured code may not be that commit's.
	Commit string `json:",omitempty"`
	Dirty  bool   `json:",omitempty"`
}

// CallCount is how often one project method ran per operation.
type CallCount struct {
	// Method is named as profiles name their callees, from the class file:
	// "p.C#pairs(int[],java.lang.String)", "p.C#<init>()".
	Method string  `json:"method"`
	PerOp  float64 `json:"per_op"`
	// Varies is set when samples of the same number of operations counted
	// differently: the calls depend on more than the arguments (random
	// numbers, caches, state carried between calls).
	Varies bool `json:"varies,omitempty"`
}

// CallCounts are a counting fork's counts.
type CallCounts struct {
	Ops   int64       `json:"ops"` // operations counted over
	Calls []CallCount `json:"calls"`
	// Loops are the passes through each method's loop bodies per
	// operation (every pass of every for, while and do loop in the method,
	// lambdas' included), most first; LoopsCounted says the copy counted
	// them (without it Loops is unknown, not empty).
	Loops        []CallCount `json:"loops,omitempty"`
	LoopsCounted bool        `json:"loops_counted,omitempty"`
}
