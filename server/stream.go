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
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"
)

// maxFrame is the largest message read: a Content-Length above it is
// treated as malformed rather than waited for. A source file perfls
// parses is at most 4 MB (javasrc.MaxSourceBytes), which JSON escaping
// can triple at worst; 64 MB keeps one message's copies well inside the
// server's 200 MB.
const maxFrame = 64 << 20

// contentLength is LSP's one required header.
const contentLength = "Content-Length:"

// stream is the server's side of LSP's framing (Content-Length headers and
// a JSON-RPC body). Unlike jsonrpc2.NewStream, whose first malformed message
// ends the connection, it answers malformed input and keeps reading: a body
// that is not JSON gets a parse error (-32700), JSON that is no JSON-RPC
// message an invalid-request error (-32600), and a header without a usable
// Content-Length a parse error, after which it skips to the next header. A
// body longer than its Content-Length leaves junk before the next header,
// which is skipped; one shorter (its Content-Length too big) swallows the
// next messages until enough bytes arrive, and those are taken back out of
// it (its own JSON, when whole, is read). Only the end of input and read or
// write failures end the stream.
//
// Writes go through a bounded queue (outbox.go) that one goroutine drains,
// so a client that stops reading holds a bounded number of messages, not a
// goroutine per message; a write blocked for giveUpAfter closes the stream.
type stream struct {
	rwc  io.ReadWriteCloser
	in   *bufio.Reader
	logf func(format string, args ...any)
	out  outbox

	closed    chan struct{} // closed by Close
	closeOnce sync.Once
	closeErr  error
	failMu    sync.Mutex
	failure   error // why the stream was closed from this side: a failed or stalled write
}

func newStream(rwc io.ReadWriteCloser, logf func(string, ...any)) *stream {
	s := &stream{rwc: rwc, in: bufio.NewReader(rwc), logf: logf, closed: make(chan struct{})}
	s.out.init(outQueueLimits)
	go s.writeLoop()
	return s
}

// Read returns the next well-formed message.
func (s *stream) Read(ctx context.Context) (jsonrpc2.Message, int64, error) {
	var total int64
	for {
		if err := ctx.Err(); err != nil {
			return nil, total, err
		}
		body, n, err := s.frame()
		total += n
		if err != nil {
			if errors.Is(err, io.EOF) {
				// The client closed its side: what is queued for it
				// still goes out before the connection closes.
				s.flush()
			}
			if f := s.failed(); f != nil {
				return nil, total, f
			}
			return nil, total, err
		}
		if body == nil {
			continue // a malformed header, answered
		}
		if i := bytes.Index(body, []byte(contentLength)); i > 0 && !json.Valid(body) {
			// Too big a Content-Length swallowed the next frames: give
			// them back.
			s.logf("a Content-Length of %d took in the next message's header at %d", len(body), i)
			s.in = bufio.NewReader(io.MultiReader(bytes.NewReader(bytes.Clone(body[i:])), s.in))
			body = body[:i]
		}
		if !json.Valid(body) {
			s.fail(nil, jsonrpc2.ParseError, fmt.Sprintf("invalid JSON in a message of %d bytes", len(body)))
			continue
		}
		msg, err := jsonrpc2.DecodeMessage(body)
		if err == nil {
			return msg, total, nil
		}
		s.fail(requestID(body), jsonrpc2.InvalidRequest, fmt.Sprintf("not a JSON-RPC request or notification: %v", err))
	}
}

// frame reads one header block and its body. A header block without a
// usable Content-Length is answered and skipped: body and error are nil.
func (s *stream) frame() (body []byte, n int64, err error) {
	length, problem, seen := -1, "", false
	for {
		line, err := s.in.ReadString('\n')
		n += int64(len(line))
		if err != nil {
			return nil, n, fmt.Errorf("read header: %w", eof(err))
		}
		t := strings.TrimSpace(line)
		if t == "" {
			if seen {
				break
			}
			continue // blank lines between messages
		}
		seen = true
		if i := strings.Index(t, contentLength); i > 0 {
			// What a body left behind beyond its Content-Length.
			s.logf("skipped %d bytes before a header", i)
			t = t[i:]
		}
		name, value, ok := strings.Cut(t, ":")
		switch {
		case !ok:
			problem = fmt.Sprintf("invalid header line %q", clip(t))
		case strings.EqualFold(strings.TrimSpace(name), "Content-Length"):
			v, err := strconv.Atoi(strings.TrimSpace(value))
			if err != nil || v <= 0 || v > maxFrame {
				problem = fmt.Sprintf("invalid Content-Length %q", clip(strings.TrimSpace(value)))
				v = -1
			}
			length = v
		}
	}
	if length < 0 {
		if problem == "" {
			problem = "no Content-Length header"
		}
		s.fail(nil, jsonrpc2.ParseError, problem+": skipped to the next header")
		skipped, err := s.skipToHeader()
		return nil, n + skipped, err
	}
	body = make([]byte, length)
	read, err := io.ReadFull(s.in, body)
	if err != nil {
		return nil, n + int64(read), fmt.Errorf("read a message of %d bytes: %w", length, eof(err))
	}
	return body, n + int64(length), nil
}

// skipToHeader drops input up to the next "Content-Length:".
func (s *stream) skipToHeader() (int64, error) {
	var n int64
	matched := 0
	for matched < len(contentLength) {
		c, err := s.in.ReadByte()
		if err != nil {
			return n, fmt.Errorf("skip to a header: %w", eof(err))
		}
		n++
		switch {
		case c == contentLength[matched]:
			matched++
		case c == contentLength[0]:
			matched = 1
		default:
			matched = 0
		}
	}
	s.in = bufio.NewReader(io.MultiReader(strings.NewReader(contentLength), s.in))
	return n - int64(len(contentLength)), nil
}

// Write queues one message for the client (outbox.go says which messages
// wait for room, which replace an older one and which are dropped). A
// response is queued even when ctx is done: a cancelled request still gets
// its answer.
func (s *stream) Write(ctx context.Context, msg jsonrpc2.Message) (int64, error) {
	if _, ok := msg.(*jsonrpc2.Response); !ok {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
	} else {
		ctx = context.WithoutCancel(ctx)
	}
	data, err := json.Marshal(msg)
	if err != nil {
		return 0, fmt.Errorf("marshal message: %w", err)
	}
	return s.write(ctx, data, policyOf(msg))
}

func (s *stream) write(ctx context.Context, data []byte, p policy) (int64, error) {
	framed := make([]byte, 0, len(data)+32)
	framed = append(framed, contentLength...)
	framed = append(framed, ' ')
	framed = strconv.AppendInt(framed, int64(len(data)), 10)
	framed = append(framed, "\r\n\r\n"...)
	framed = append(framed, data...)
	if err := s.out.put(ctx, s.closed, framed, p); err != nil {
		return 0, fmt.Errorf("write to stream: %w", err)
	}
	return int64(len(framed)), nil
}

// writeLoop writes the queued messages in order until the stream closes.
// A write blocked for giveUpAfter gives up on the client: the stream closes
// (the connection ends, Session.Wait returns and background jobs are
// cancelled). The write itself may stay blocked until the process exits
// (a blocking pipe cannot be interrupted), but nothing waits for it.
func (s *stream) writeLoop() {
	for {
		data, ok := s.out.take(s.closed)
		if !ok {
			return
		}
		limit := s.out.limits.giveUpAfter
		stalled := time.AfterFunc(limit, func() {
			s.close(fmt.Errorf("the client read nothing for %v: gave up on it, connection closed", limit))
		})
		_, err := s.rwc.Write(data)
		stalled.Stop()
		s.out.written()
		if err != nil {
			s.close(fmt.Errorf("write to the client: %w", err))
			return
		}
	}
}

// flush waits until every queued message was written, or the stream closed.
func (s *stream) flush() { s.out.flush(s.closed) }

// fail answers a malformed message with a JSON-RPC error; id is the
// request's when it could be read, else null.
func (s *stream) fail(id json.RawMessage, code jsonrpc2.Code, message string) {
	s.logf("malformed message: %s", message)
	if id == nil {
		id = json.RawMessage("null")
	}
	data, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   jsonrpc2.Error  `json:"error"`
	}{"2.0", id, jsonrpc2.Error{Code: code, Message: message}})
	if _, err := s.write(context.Background(), data, policy{}); err != nil {
		s.logf("answer a malformed message: %v", err)
	}
}

// Close closes the underlying stream; messages still queued are dropped.
func (s *stream) Close() error { return s.close(nil) }

// close closes the stream once; failure, when not nil, is why (logged, and
// what Read returns from then on, so the session ends as failed).
func (s *stream) close(failure error) error {
	s.closeOnce.Do(func() {
		if failure != nil {
			s.logf("%v", failure)
			s.failMu.Lock()
			s.failure = failure
			s.failMu.Unlock()
		}
		close(s.closed)
		s.out.drop()
		s.closeErr = s.rwc.Close()
	})
	return s.closeErr
}

// failed is why this side closed the stream, nil when it did not.
func (s *stream) failed() error {
	s.failMu.Lock()
	defer s.failMu.Unlock()
	return s.failure
}

// requestID is the id of a malformed request when it has a usable one.
func requestID(body []byte) json.RawMessage {
	var m struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(body, &m) != nil || len(m.ID) == 0 {
		return nil
	}
	var n int64
	var s string
	if json.Unmarshal(m.ID, &n) != nil && json.Unmarshal(m.ID, &s) != nil {
		return nil
	}
	return m.ID
}

// eof makes a truncated stream an end of input: the client went away.
func eof(err error) error {
	if err == io.ErrUnexpectedEOF {
		return io.EOF
	}
	return err
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}
