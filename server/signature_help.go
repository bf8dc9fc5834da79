package server

import (
	"context"

	"go.lsp.dev/protocol"
)

// signatureTriggers open signature help on a generator's arguments.
var signatureTriggers = []string{"(", ","}

// SignatureHelp shows, inside the arguments of a term measured on a
// generator ("SELF[gen](10, |"), the generator's parameters with their
// documentation (@Generator.Param), the one under the cursor active.
func (s *server) SignatureHelp(_ context.Context, p *protocol.SignatureHelpParams) (*protocol.SignatureHelp, error) {
	snap := s.sess.Snapshot(p.TextDocument.URI)
	if snap.Doc == nil || snap.Doc.Java == nil {
		return nil, nil
	}
	w := fileWorkspace(snap)
	off := snap.Doc.Java.Mapper.Offset(fromProtocolRange(protocol.Range{Start: p.Position}).Start)
	sig, ok := w.SignatureAt(snap.Doc.Path, off)
	if !ok {
		return nil, nil
	}
	info := protocol.SignatureInformation{Label: sig.Label}
	if sig.Doc != "" {
		info.Documentation = sig.Doc
	}
	for _, pa := range sig.Params {
		pi := protocol.ParameterInformation{Label: sig.Label[pa.Start:pa.End]}
		if pa.Doc != "" {
			pi.Documentation = pa.Doc
		}
		info.Parameters = append(info.Parameters, pi)
	}
	return &protocol.SignatureHelp{Signatures: []protocol.SignatureInformation{info}, ActiveParameter: uint32(sig.Active)}, nil
}
