package textpos

import "testing"

func TestPositionCountsUTF16(t *testing.T) {
	// "é" is 2 bytes / 1 UTF-16 unit; "😀" is 4 bytes / 2 UTF-16 units.
	text := "ab\n  é😀x\r\nlast"
	m := NewMapper(text)
	cases := []struct {
		offset int
		want   Position
	}{
		{0, Position{0, 0}},
		{2, Position{0, 2}},
		{3, Position{1, 0}},
		{5, Position{1, 2}},  // é
		{7, Position{1, 3}},  // 😀
		{11, Position{1, 5}}, // x
		{12, Position{1, 6}}, // \r
		{14, Position{2, 0}},
		{len(text), Position{2, 4}},
		{999, Position{2, 4}},
		{8, Position{1, 3}}, // inside 😀 maps to its start
	}
	for _, c := range cases {
		if got := m.Position(c.offset); got != c.want {
			t.Errorf("Position(%d) = %v, want %v", c.offset, got, c.want)
		}
	}
}

func TestOffsetRoundTripsAndClamps(t *testing.T) {
	text := "ab\n  é😀x\r\nlast"
	m := NewMapper(text)
	for _, off := range []int{0, 1, 2, 3, 4, 5, 7, 11, 14, 15, 18} {
		if got := m.Offset(m.Position(off)); got != off {
			t.Errorf("Offset(Position(%d)) = %d", off, got)
		}
	}
	if got := m.Offset(Position{1, 99}); got != 12 {
		t.Errorf("past end of line 1: got %d, want 12 (before \\r\\n)", got)
	}
	if got := m.Offset(Position{9, 0}); got != len(text) {
		t.Errorf("past last line: got %d", got)
	}
}
