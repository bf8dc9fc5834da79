package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/perfls/perfls/analysis/workspace"
)

// FormatVersion is the version of every JSON document perfls prints
// (--format json; docs/json.md): 2 since every key is snake_case. Version
// 1, with some camelCase keys and no format_version, came before.
const FormatVersion = 2

// FormatVersionKey is the top-level key that holds FormatVersion.
const FormatVersionKey = "format_version"

// MarshalDocument is v's JSON object, compact, with FormatVersionKey as
// its first key. v must encode as an object: a list is a field of one (a
// reader checks the version before reading the rest).
func MarshalDocument(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // "<init>" stays readable
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	data := bytes.TrimSpace(buf.Bytes())
	if len(data) < 2 || data[0] != '{' {
		return nil, fmt.Errorf("a %T is not a JSON object: every JSON document perfls prints is one", v)
	}
	head := fmt.Sprintf(`{"%s":%d`, FormatVersionKey, FormatVersion)
	if data[1] != '}' {
		head += ","
	}
	return append([]byte(head), data[1:]...), nil
}

// WriteJSON writes v as an indented JSON document (MarshalDocument), as
// every perfls JSON output is.
func WriteJSON(w io.Writer, v any) error {
	data, err := MarshalDocument(v)
	if err != nil {
		return err
	}
	var out bytes.Buffer
	if err := json.Indent(&out, data, "", "  "); err != nil {
		return err
	}
	out.WriteByte('\n')
	_, err = w.Write(out.Bytes())
	return err
}

// writeJSONLine writes v as a document on one line (a stream of them
// reads as JSON Lines).
func writeJSONLine(w io.Writer, v any) error {
	data, err := MarshalDocument(v)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", data)
	return err
}

// HistoryDocument is perfls history --format json: a method's stored
// results, oldest first.
type HistoryDocument struct {
	Method  string       `json:"method"`
	Results []HistoryRow `json:"results"`
}

// NewHistoryDocument is the document of method's rows (never a null list).
func NewHistoryDocument(method string, rows []HistoryRow) HistoryDocument {
	return HistoryDocument{Method: method, Results: orEmpty(rows)}
}

// LintDocument is perfls lint --format json.
type LintDocument struct {
	Diagnostics []workspace.Diagnostic `json:"diagnostics"`
}

// NewLintDocument is the document of diags (never a null list).
func NewLintDocument(diags []workspace.Diagnostic) LintDocument {
	return LintDocument{Diagnostics: orEmpty(diags)}
}

// CalibrationDocument is perfls calibrate --format json: the calibrated
// workload, the run --accept accepted (0: none) and the stored model.
type CalibrationDocument struct {
	Key         WorkloadKey  `json:"key"`
	AcceptedRun int64        `json:"accepted_run"`
	Model       ModelSummary `json:"model"`
}

// WorkloadKey names a calibrated workload: the method, the generator
// ("" for none) and the arguments.
type WorkloadKey struct {
	Method   string `json:"method"`
	Workload string `json:"workload"`
	Args     string `json:"args"`
}
