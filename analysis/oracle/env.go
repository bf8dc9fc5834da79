package oracle

import (
	"fmt"
	"sort"
)

// TrainEnv learns the environment of the calibration runs: the meta-data
// every run shares once the volatile keys in filter are dropped. Runs that
// disagree on a key, or where a key is missing from some, are an error,
// because bands learned across environments mean nothing (reference §1.5).
func TrainEnv(envs []map[string]string, filter []string) (map[string]string, error) {
	drop := map[string]bool{}
	for _, f := range filter {
		drop[f] = true
	}
	model := map[string]string{}
	if len(envs) == 0 {
		return model, nil
	}
	for k, v := range envs[0] {
		if !drop[k] {
			model[k] = v
		}
	}
	for i, env := range envs[1:] {
		for _, d := range DiffEnv(model, env, filter) {
			return nil, fmt.Errorf("%w: run %d: %s", ErrEnvMismatch, i+2, d)
		}
	}
	return model, nil
}

// EnvDiff is one way a run's environment differs from the model's.
type EnvDiff struct {
	Key   string `json:"key"`
	Kind  string `json:"kind"` // "missing", "different" or "extra"
	Model string `json:"model,omitempty"`
	Run   string `json:"run,omitempty"`
}

func (d EnvDiff) String() string {
	switch d.Kind {
	case "missing":
		return fmt.Sprintf("%s missing (calibrated with %q)", d.Key, d.Model)
	case "extra":
		return fmt.Sprintf("%s=%q not present at calibration", d.Key, d.Run)
	default:
		return fmt.Sprintf("%s is %q, calibrated with %q", d.Key, d.Run, d.Model)
	}
}

// DiffEnv compares a run's environment with the model's, ignoring filtered
// keys. An empty result means the oracle applies.
func DiffEnv(model, run map[string]string, filter []string) []EnvDiff {
	drop := map[string]bool{}
	for _, f := range filter {
		drop[f] = true
	}
	var out []EnvDiff
	for k, mv := range model {
		rv, ok := run[k]
		switch {
		case !ok:
			out = append(out, EnvDiff{Key: k, Kind: "missing", Model: mv})
		case rv != mv:
			out = append(out, EnvDiff{Key: k, Kind: "different", Model: mv, Run: rv})
		}
	}
	for k, rv := range run {
		if _, ok := model[k]; !ok && !drop[k] {
			out = append(out, EnvDiff{Key: k, Kind: "extra", Run: rv})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}
