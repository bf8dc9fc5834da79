package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"testing"

	"go.lsp.dev/jsonrpc2"
)

// rawIO is a stream's input as bytes and its output in a buffer.
type rawIO struct {
	io.Reader
	out bytes.Buffer
}

func (r *rawIO) Write(p []byte) (int, error) { return r.out.Write(p) }
func (r *rawIO) Close() error                { return nil }

func frame(body string) string {
	return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body)
}

func request(id int) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"textDocument/hover","params":{}}`, id)
}

// readAll reads every message of input and returns the ids of the calls
// read and the error replies the stream wrote itself, as "id code".
func readAll(t *testing.T, input string) (ids []string, replies []string) {
	t.Helper()
	rio := &rawIO{Reader: strings.NewReader(input)}
	s := newStream(rio, t.Logf)
	for {
		msg, _, err := s.Read(context.Background())
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("read: %v", err)
		}
		if c, ok := msg.(*jsonrpc2.Call); ok {
			ids = append(ids, fmt.Sprint(c.ID()))
		}
	}
	r := bufio.NewReader(&rio.out)
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			break
		}
		n, _ := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(line, "Content-Length:")))
		r.ReadString('\n')
		body := make([]byte, n)
		io.ReadFull(r, body)
		var resp struct {
			ID    json.RawMessage
			Error struct{ Code int }
		}
		if err := json.Unmarshal(body, &resp); err != nil {
			t.Fatalf("reply %q: %v", body, err)
		}
		replies = append(replies, fmt.Sprintf("%s %d", resp.ID, resp.Error.Code))
	}
	return ids, replies
}

// TestStreamSurvivesMalformedInput: every malformed message is answered
// with its JSON-RPC error and the messages after it are still read.
func TestStreamSurvivesMalformedInput(t *testing.T) {
	cases := []struct {
		name    string
		input   string
		ids     string // the calls read, in order
		replies string // the stream's own error replies
	}{
		{"invalid JSON", frame(`{"jsonrpc":`) + frame(request(2)), "2", "null -32700"},
		{"Content-Length not a number", "Content-Length: abc\r\n\r\n" + request(1) + frame(request(2)), "2", "null -32700"},
		{"no Content-Length", "Content-Type: application/json\r\n\r\n" + request(1) + frame(request(2)), "2", "null -32700"},
		{"header line without a colon", "garbage\r\n\r\n" + request(1) + frame(request(2)), "2", "null -32700"},
		{"negative Content-Length", "Content-Length: -5\r\n\r\n" + request(1) + frame(request(2)), "2", "null -32700"},
		{"Content-Length too small", "Content-Length: 10\r\n\r\n" + request(1) + frame(request(2)), "2", "null -32700"},
		{"Content-Length too big", fmt.Sprintf("Content-Length: %d\r\n\r\n", len(request(1))+40) + request(1) + frame(request(2)) + frame(request(3)), "1 2 3", ""},
		{"Content-Length too big, broken body", fmt.Sprintf("Content-Length: %d\r\n\r\n", len(request(1))+30) + request(1)[:20] + frame(request(2)) + frame(request(3)), "2 3", "null -32700"},
		{"JSON but no message", frame(`[1, 2]`) + frame(request(2)), "2", "null -32600"},
		{"a request with a bad method", frame(`{"jsonrpc":"2.0","id":7,"method":5}`) + frame(request(2)), "2", "7 -32600"},
		{"blank lines between messages", "\r\n" + frame(request(1)) + "\r\n\r\n" + frame(request(2)), "1 2", ""},
		{"truncated at the end", frame(request(1)) + "Content-Length: 90\r\n\r\n{", "1", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ids, replies := readAll(t, c.input)
			if strings.Join(ids, " ") != c.ids || strings.Join(replies, "; ") != c.replies {
				t.Errorf("read calls %v and replied %v, want %s and %s", ids, replies, c.ids, c.replies)
			}
		})
	}
}
