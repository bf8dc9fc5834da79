package lsp317

import (
	"encoding/json"
	"testing"

	"go.lsp.dev/protocol"
)

// The wire format of the specification's examples.
func TestWireFormat(t *testing.T) {
	h := InlayHint{
		Position:    protocol.Position{Line: 3, Character: 17},
		Label:       "≈ 1.43 µs ± 2 %",
		PaddingLeft: true,
		Tooltip:     &protocol.MarkupContent{Kind: protocol.Markdown, Value: "measured"},
	}
	b, err := json.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"position":{"line":3,"character":17},"label":"≈ 1.43 µs ± 2 %","tooltip":{"kind":"markdown","value":"measured"},"paddingLeft":true}`
	if string(b) != want {
		t.Errorf("hint\n got %s\nwant %s", b, want)
	}
	parts := InlayHint{Label: []InlayHintLabelPart{{Value: "a"}}, Kind: InlayHintKindType}
	if b, _ := json.Marshal(parts); string(b) != `{"position":{"line":0,"character":0},"label":[{"value":"a"}],"kind":1}` {
		t.Errorf("label parts: %s", b)
	}
	var p InlayHintParams
	if err := json.Unmarshal([]byte(`{"textDocument":{"uri":"file:///a/B.java"},"range":{"start":{"line":0,"character":0},"end":{"line":40,"character":0}}}`), &p); err != nil || p.Range.End.Line != 40 || p.TextDocument.URI != "file:///a/B.java" {
		t.Errorf("params %+v %v", p, err)
	}
	caps := ServerCapabilities{ServerCapabilities: protocol.ServerCapabilities{HoverProvider: true}, InlayHintProvider: &InlayHintOptions{}}
	if b, _ := json.Marshal(caps); string(b) != `{"hoverProvider":true,"inlayHintProvider":{}}` {
		t.Errorf("capabilities: %s", b)
	}
}
