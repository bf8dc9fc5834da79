package verdict

import (
	"encoding/json"
	"math"
	"strconv"
)

// jsonFloat writes NaN and ±Inf (an undefined ratio, a zero-variance
// statistic) as null, which encoding/json cannot otherwise encode, and reads
// null back as NaN.
type jsonFloat float64

func (f jsonFloat) MarshalJSON() ([]byte, error) {
	v := float64(f)
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return []byte("null"), nil
	}
	return strconv.AppendFloat(nil, v, 'g', -1, 64), nil
}

func (f *jsonFloat) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*f = jsonFloat(math.NaN())
		return nil
	}
	v, err := strconv.ParseFloat(string(b), 64)
	*f = jsonFloat(v)
	return err
}

type evidenceAlias Evidence

type evidenceWire struct {
	*evidenceAlias
	Ratio     jsonFloat `json:"ratio"`
	RatioLow  jsonFloat `json:"ratio_ci_low"`
	RatioHigh jsonFloat `json:"ratio_ci_high"`
	T         jsonFloat `json:"t"`
	DF        jsonFloat `json:"df"`
	P         jsonFloat `json:"p"`
}

// MarshalJSON encodes undefined numbers as null.
func (e Evidence) MarshalJSON() ([]byte, error) {
	a := evidenceAlias(e)
	return json.Marshal(evidenceWire{&a, jsonFloat(e.Ratio), jsonFloat(e.RatioLow), jsonFloat(e.RatioHigh),
		jsonFloat(e.T), jsonFloat(e.DF), jsonFloat(e.P)})
}

// UnmarshalJSON reads what MarshalJSON wrote (null → NaN).
func (e *Evidence) UnmarshalJSON(b []byte) error {
	w := evidenceWire{evidenceAlias: (*evidenceAlias)(e)}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	e.Ratio, e.RatioLow, e.RatioHigh = float64(w.Ratio), float64(w.RatioLow), float64(w.RatioHigh)
	e.T, e.DF, e.P = float64(w.T), float64(w.DF), float64(w.P)
	return nil
}
