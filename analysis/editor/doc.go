// Package editor computes what the language server's editor features show,
// as pure functions of the source model (analysis/javasrc), the formulas
// (analysis/workspace) and figures handed in: semantic tokens of the SPL
// inside annotation strings, document symbols, rename and references of
// methods and generators named in formulas, quick fixes for lint
// diagnostics, and the text of inlay hints. It does no I/O; the server
// turns its values into protocol messages, one file per feature.
package editor
