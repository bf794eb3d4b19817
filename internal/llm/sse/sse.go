// Package sse reads Server-Sent Events streams as model vendors send them.
//
// It follows the WHATWG event-stream rules (fields "event", "data", "id";
// comment lines beginning with ':'; a blank line ends an event; several
// data lines join with '\n'; one space after the colon is dropped) and is
// lenient where real servers are sloppy: leading whitespace before a field
// name is ignored, CR, LF and CRLF all end lines, and a stream that ends
// without a final blank line still yields its last event.
package sse

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// MaxEventSize bounds one line, and one event's data, of a Reader made by
// NewReader, so that a broken server cannot make hermes buffer without
// limit: a line that never ends is cut as surely as an endless event.
const MaxEventSize = 32 << 20

// ErrTooLarge is returned, wrapped with the limit, when a line or an
// event's data exceeds the reader's limit.
var ErrTooLarge = errors.New("sse: event too large")

// Event is one dispatched event. Data is only valid until the next call to
// Reader.Next; callers that keep it must copy it.
type Event struct {
	// Name is the "event:" field, empty for the default "message" event.
	Name string
	Data []byte
	ID   string
}

// Reader reads events from an io.Reader.
type Reader struct {
	br      *bufio.Reader
	data    []byte
	name    string
	id      string
	line    []byte
	pending []byte // rest of a line split at a bare CR
	hasData bool
	limit   int
}

// NewReader returns a Reader over r whose lines and events may be up to
// MaxEventSize bytes.
func NewReader(r io.Reader) *Reader { return NewReaderLimit(r, MaxEventSize) }

// NewReaderLimit returns a Reader over r whose lines and events may be up
// to limit bytes; a longer one ends the stream with ErrTooLarge. The
// reader holds no more than about twice the limit.
func NewReaderLimit(r io.Reader, limit int) *Reader {
	return &Reader{br: bufio.NewReaderSize(r, 32<<10), limit: limit}
}

// tooLarge is the error for a line or event past the limit.
func (r *Reader) tooLarge() error {
	return fmt.Errorf("%w: more than %d bytes", ErrTooLarge, r.limit)
}

// Next returns the next event. At the end of the stream it returns io.EOF;
// a transport failure is returned as is.
func (r *Reader) Next() (Event, error) {
	r.data = r.data[:0]
	r.name, r.hasData = "", false
	for {
		line, err := r.readLine()
		if err != nil {
			if err == io.EOF && r.hasData {
				return r.event(), nil
			}
			return Event{}, err
		}
		if len(line) == 0 {
			if r.hasData {
				return r.event(), nil
			}
			r.name = ""
			continue
		}
		if err := r.field(line); err != nil {
			return Event{}, err
		}
	}
}

func (r *Reader) event() Event {
	return Event{Name: r.name, Data: r.data, ID: r.id}
}

// field interprets one non-empty line.
func (r *Reader) field(line []byte) error {
	line = bytes.TrimLeft(line, " \t")
	if len(line) == 0 || line[0] == ':' {
		return nil
	}
	name, value := line, []byte(nil)
	if i := bytes.IndexByte(line, ':'); i >= 0 {
		name, value = line[:i], line[i+1:]
		if len(value) > 0 && value[0] == ' ' {
			value = value[1:]
		}
	}
	switch string(name) {
	case "data":
		if r.hasData {
			r.data = append(r.data, '\n')
		}
		if len(r.data)+len(value) > r.limit {
			return r.tooLarge()
		}
		r.data = append(r.data, value...)
		r.hasData = true
	case "event":
		r.name = string(value)
	case "id":
		if bytes.IndexByte(value, 0) < 0 {
			r.id = string(value)
		}
	}
	return nil
}

// readLine returns the next line without its terminator. The slice is valid
// until the next call.
func (r *Reader) readLine() ([]byte, error) {
	if r.pending != nil {
		return r.splitCR(r.pending), nil
	}
	r.line = r.line[:0]
	for {
		chunk, err := r.br.ReadSlice('\n')
		if len(r.line)+len(chunk) > r.limit {
			return nil, r.tooLarge()
		}
		if err == bufio.ErrBufferFull {
			r.line = append(r.line, chunk...)
			continue
		}
		var line []byte
		if len(r.line) > 0 {
			r.line = append(r.line, chunk...)
			line = r.line
		} else {
			line = chunk
		}
		if err != nil {
			if err == io.EOF && len(line) > 0 {
				return r.splitCR(line), nil
			}
			if err == io.EOF {
				return nil, io.EOF
			}
			return nil, fmt.Errorf("sse: read: %w", err)
		}
		line = line[:len(line)-1]
		if n := len(line); n > 0 && line[n-1] == '\r' {
			line = line[:n-1]
		}
		return r.splitCR(line), nil
	}
}

// splitCR handles the rare bare-CR line ending: it returns the text before
// the first CR and keeps the rest for the next call.
func (r *Reader) splitCR(line []byte) []byte {
	i := bytes.IndexByte(line, '\r')
	if i < 0 {
		r.pending = nil
		return line
	}
	rest := line[i+1:]
	if len(rest) == 0 {
		r.pending = nil
	} else {
		r.pending = append([]byte(nil), rest...)
	}
	return line[:i]
}
