package changepoint

import (
	"fmt"
	"math"
	"slices"
)

// CommitSamples is one commit's measurement of a series: the samples (fork
// means, say) of one (method, workload, args, metric) on one machine class.
type CommitSamples struct {
	Commit  string
	Samples []float64
}

// CommitChange is a change point at a commit: the first commit of the new
// level.
type CommitChange struct {
	Commit string `json:"commit"`
	// Previous is the series' commit before Commit: the last of the old
	// level, so the change lies in the commits after it up to Commit.
	Previous string `json:"previous,omitempty"`
	ChangePoint
}

// CommitSeries is a Detector over commits in first-parent order: each
// commit contributes the mean of its samples as one point, as Otava takes
// one value per result. It is what a store of results per commit feeds.
type CommitSeries struct {
	d       *Detector
	commits []string
}

// NewCommitSeries makes an empty series.
func NewCommitSeries(cfg Config) (*CommitSeries, error) {
	d, err := New(cfg)
	if err != nil {
		return nil, err
	}
	return &CommitSeries{d: d}, nil
}

// Append adds commits (oldest first) and returns all change points.
func (s *CommitSeries) Append(points ...CommitSamples) ([]CommitChange, error) {
	vals := make([]float64, len(points))
	for i, p := range points {
		if len(p.Samples) == 0 {
			return nil, fmt.Errorf("commit %s has no samples", p.Commit)
		}
		var sum float64
		for _, v := range p.Samples {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("commit %s: sample %v is not a finite number", p.Commit, v)
			}
			sum += v
		}
		vals[i] = sum / float64(len(p.Samples))
	}
	cps, err := s.d.Append(vals...)
	if err != nil {
		return nil, err
	}
	s.commits = slices.Grow(s.commits, len(points))
	for _, p := range points {
		s.commits = append(s.commits, p.Commit)
	}
	out := make([]CommitChange, len(cps))
	for i, c := range cps {
		out[i] = CommitChange{Commit: s.commits[c.Index], ChangePoint: c}
		if c.Index > 0 {
			out[i].Previous = s.commits[c.Index-1]
		}
	}
	return out, nil
}

// DetectCommits finds the change points of a whole commit history.
func DetectCommits(points []CommitSamples, cfg Config) ([]CommitChange, error) {
	s, err := NewCommitSeries(cfg)
	if err != nil {
		return nil, err
	}
	return s.Append(points...)
}

// Len is the number of commits in the series.
func (s *CommitSeries) Len() int { return len(s.commits) }
