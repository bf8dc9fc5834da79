package dataset

import (
	"os"
	"testing"
)

// FuzzParse: no input may panic the readers of recorded results, and what
// they accept must be usable (every measurement has a name and forks).
func FuzzParse(f *testing.F) {
	for _, name := range []string{"testdata/jmh.json", "testdata/perfls.json", "testdata/perfls-single.json"} {
		if b, err := os.ReadFile(name); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(`{"method":"p.C#m()","forks":[{"ns_per_op":[1,2]}]}` + "\n" + `[{"benchmark":"a.B.c","mode":"thrpt","primaryMetric":{"scoreUnit":"ops/s","rawData":[[1,0]]}}]`))
	f.Add([]byte(`[{"benchmark":"a.B.c","mode":"avgt","params":{"n":"1"},"primaryMetric":{"scoreUnit":"xs/op","rawData":[[]]}}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		ms, err := Parse(data)
		if err != nil {
			return
		}
		for _, m := range ms {
			if m.Name() == "" {
				t.Errorf("accepted a measurement without a name: %+v", m)
			}
		}
	})
}
