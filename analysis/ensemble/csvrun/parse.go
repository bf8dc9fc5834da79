// Package csvrun reads test runs for the ensemble detector from CSV files:
// a header row, a time column, one column per counter; and each run's
// environment from a NAME.env file of key=value lines beside NAME.csv.
// Parse and ParseEnv are pure; Load reads directories (dir.go).
package csvrun

import (
	"bufio"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/perfls/perfls/analysis/ensemble"
	"github.com/perfls/perfls/internal/input"
)

// Table is a parsed CSV: the times of the rows and the counters' values.
type Table struct {
	Counters []string
	Times    []float64   // seconds: numbers as given, RFC 3339 times as Unix seconds
	Rows     [][]float64 // Rows[i][c]
}

// Parse reads one run's CSV. The first column is the time (a number, or an
// RFC 3339 timestamp); every other column is a counter with a unique,
// non-empty name and finite numbers. Errors name the file, the line and the
// column.
//
// What the file says is quoted cut and escaped (input.Quote); names (the
// counters') with control characters, or longer than MaxName, are refused,
// and so is a line longer than MaxLine: nothing of the file reaches a
// terminal raw or whole.
func Parse(r io.Reader, name string) (Table, error) {
	lines := &lineLimit{r: r}
	cr := csv.NewReader(lines)
	cr.FieldsPerRecord = -1
	cr.TrimLeadingSpace = true
	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return Table{}, fmt.Errorf("%s: empty file: want a header row (time, then one column per counter)", name)
	}
	if err != nil {
		return Table{}, readError(name, lines, err)
	}
	if len(header) < 2 {
		return Table{}, fmt.Errorf("%s:1: header has %d column(s): want a time column and at least one counter", name, len(header))
	}
	t := Table{}
	seen := map[string]bool{}
	for i, h := range header[1:] {
		h = strings.TrimSpace(h)
		switch {
		case h == "":
			return Table{}, fmt.Errorf("%s:1: column %d has no name", name, i+2)
		case seen[h]:
			return Table{}, fmt.Errorf("%s:1: counter %s appears twice", name, input.Quote(h))
		}
		if err := checkName(h); err != nil {
			return Table{}, fmt.Errorf("%s:1: column %d: %w", name, i+2, err)
		}
		seen[h] = true
		t.Counters = append(t.Counters, h)
	}
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return Table{}, readError(name, lines, err)
		}
		line, _ := cr.FieldPos(0) // only valid after a record was read

		if len(rec) == 1 && strings.TrimSpace(rec[0]) == "" {
			continue
		}
		if len(rec) != len(header) {
			return Table{}, fmt.Errorf("%s:%d: %d fields, the header has %d", name, line, len(rec), len(header))
		}
		tm, err := parseTime(rec[0])
		if err != nil {
			return Table{}, fmt.Errorf("%s:%d: time %s: want seconds or an RFC 3339 timestamp", name, line, input.Quote(rec[0]))
		}
		row := make([]float64, len(t.Counters))
		for c, f := range rec[1:] {
			v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				return Table{}, fmt.Errorf("%s:%d: counter %s: %s is not a finite number (fill or drop the row)", name, line, t.Counters[c], input.Quote(f))
			}
			row[c] = v
		}
		if n := len(t.Times); n > 0 && tm < t.Times[n-1] {
			return Table{}, fmt.Errorf("%s:%d: time %s is before the previous row's: sort the rows by time", name, line, input.Quote(rec[0]))
		}
		t.Times = append(t.Times, tm)
		t.Rows = append(t.Rows, row)
	}
	if len(t.Rows) == 0 {
		return Table{}, fmt.Errorf("%s: no data rows after the header", name)
	}
	return t, nil
}

func parseTime(s string) (float64, error) {
	s = strings.TrimSpace(s)
	if v, err := strconv.ParseFloat(s, 64); err == nil && !math.IsNaN(v) && !math.IsInf(v, 0) {
		return v, nil
	}
	tm, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return 0, err
	}
	return float64(tm.UnixNano()) / 1e9, nil
}

// ParseEnv reads an environment file: key=value lines (cores=8,
// memory=16g, jvm=21), blank lines and # comments ignored.
func ParseEnv(r io.Reader, name string) (ensemble.Environment, error) {
	env := ensemble.Environment{}
	sc := bufio.NewScanner(r)
	for line := 1; sc.Scan(); line++ {
		s := strings.TrimSpace(sc.Text())
		if s == "" || strings.HasPrefix(s, "#") {
			continue
		}
		k, v, ok := strings.Cut(s, "=")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !ok || k == "" {
			return nil, fmt.Errorf("%s:%d: %s: want key=value (e.g. cores=8)", name, line, input.Quote(s))
		}
		if _, dup := env[k]; dup {
			return nil, fmt.Errorf("%s:%d: component %s given twice", name, line, input.Quote(k))
		}
		for _, x := range []string{k, v} {
			if err := checkName(x); err != nil {
				return nil, fmt.Errorf("%s:%d: %w", name, line, err)
			}
		}
		env[k] = v
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return env, nil
}

// MaxName is the longest counter name, environment key or value: they are
// shown in the report whole.
const MaxName = 256

// MaxLine is the longest line of a CSV run: a row of a few hundred
// counters is a few kilobytes.
const MaxLine = 1 << 20

// checkName refuses a name the report could not show as it is.
func checkName(s string) error {
	switch {
	case len(s) > MaxName:
		return fmt.Errorf("%s: %d bytes, longer than the %d a name may have", input.Quote(s), len(s), MaxName)
	case input.Printable(s) != s || strings.ContainsAny(s, "\n\t"):
		return fmt.Errorf("%s holds control characters: a name is text on one line", input.Quote(s))
	}
	return nil
}

// lineLimit passes a reader through, but fails a line longer than MaxLine
// (csv would hold it whole), and counts lines for the message.
type lineLimit struct {
	r    io.Reader
	line int // lines read so far, 0-based
	len  int // bytes of the current line so far
}

// errLongLine is lineLimit's error.
var errLongLine = errors.New("line too long")

func (l *lineLimit) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	for i, c := range p[:n] {
		if c == '\n' {
			l.line++
			l.len = 0
			continue
		}
		if l.len++; l.len > MaxLine {
			return i, errLongLine
		}
	}
	return n, err
}

// readError is what a failed read of a CSV run says.
func readError(name string, lines *lineLimit, err error) error {
	var large *input.TooLargeError
	switch {
	case errors.Is(err, errLongLine):
		return fmt.Errorf("%s:%d: a line longer than %s: not a CSV run (a time and numbers per row)", name, lines.line+1, input.Bytes(MaxLine))
	case errors.As(err, &large), errors.Is(err, context.Canceled):
		return err // it names the file, or there is nothing to say
	}
	return fmt.Errorf("%s: %w", name, err)
}
