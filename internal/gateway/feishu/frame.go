package feishu

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// frame is the long connection's message, Feishu's protobuf pbbp2.Frame,
// encoded and decoded here by hand: nine fields do not earn a protobuf
// dependency.
//
//	message Header { string key = 1; string value = 2; }
//	message Frame {
//	  uint64 SeqID = 1; uint64 LogID = 2; int32 service = 3;
//	  int32 method = 4;              // 0 control (ping, pong), 1 data
//	  repeated Header headers = 5;
//	  string payload_encoding = 6; string payload_type = 7;
//	  bytes payload = 8; string LogIDNew = 9;
//	}
type frame struct {
	SeqID, LogID    uint64
	Service, Method int32
	Headers         []header
	PayloadEncoding string
	PayloadType     string
	Payload         []byte
	LogIDNew        string
}

type header struct{ Key, Value string }

// The frame methods.
const (
	methodControl = 0
	methodData    = 1
)

// get returns the value of header key, "" when absent.
func (f *frame) get(key string) string {
	for _, h := range f.Headers {
		if h.Key == key {
			return h.Value
		}
	}
	return ""
}

// set replaces or adds header key.
func (f *frame) set(key, value string) {
	for i, h := range f.Headers {
		if h.Key == key {
			f.Headers[i].Value = value
			return
		}
	}
	f.Headers = append(f.Headers, header{key, value})
}

// marshal encodes f as Feishu's SDK does: every field but the payload is
// written even when empty (the first four are required), in order.
func (f *frame) marshal() []byte {
	var b []byte
	b = appendVarintField(b, 1, f.SeqID)
	b = appendVarintField(b, 2, f.LogID)
	b = appendVarintField(b, 3, uint64(int64(f.Service)))
	b = appendVarintField(b, 4, uint64(int64(f.Method)))
	for _, h := range f.Headers {
		var hb []byte
		hb = appendBytesField(hb, 1, []byte(h.Key))
		hb = appendBytesField(hb, 2, []byte(h.Value))
		b = appendBytesField(b, 5, hb)
	}
	b = appendBytesField(b, 6, []byte(f.PayloadEncoding))
	b = appendBytesField(b, 7, []byte(f.PayloadType))
	if f.Payload != nil {
		b = appendBytesField(b, 8, f.Payload)
	}
	return appendBytesField(b, 9, []byte(f.LogIDNew))
}

func appendVarintField(b []byte, field int, v uint64) []byte {
	b = binary.AppendUvarint(b, uint64(field)<<3|0)
	return binary.AppendUvarint(b, v)
}

func appendBytesField(b []byte, field int, v []byte) []byte {
	b = binary.AppendUvarint(b, uint64(field)<<3|2)
	b = binary.AppendUvarint(b, uint64(len(v)))
	return append(b, v...)
}

var errTruncated = errors.New("feishu: a long-connection frame is cut short")

// unmarshalFrame decodes a frame, skipping fields it does not know.
func unmarshalFrame(b []byte) (frame, error) {
	var f frame
	err := eachField(b, func(field int, v uint64, data []byte) error {
		switch field {
		case 1:
			f.SeqID = v
		case 2:
			f.LogID = v
		case 3:
			f.Service = int32(v)
		case 4:
			f.Method = int32(v)
		case 5:
			var h header
			err := eachField(data, func(field int, _ uint64, data []byte) error {
				switch field {
				case 1:
					h.Key = string(data)
				case 2:
					h.Value = string(data)
				}
				return nil
			})
			if err != nil {
				return err
			}
			f.Headers = append(f.Headers, h)
		case 6:
			f.PayloadEncoding = string(data)
		case 7:
			f.PayloadType = string(data)
		case 8:
			f.Payload = append([]byte{}, data...)
		case 9:
			f.LogIDNew = string(data)
		}
		return nil
	})
	return f, err
}

// eachField calls fn with every field of a protobuf message: its number,
// and its value (varints) or bytes (length-delimited).
func eachField(b []byte, fn func(field int, v uint64, data []byte) error) error {
	for len(b) > 0 {
		key, n := binary.Uvarint(b)
		if n <= 0 {
			return errTruncated
		}
		b = b[n:]
		field, wire := int(key>>3), key&7
		var v uint64
		var data []byte
		switch wire {
		case 0:
			v, n = binary.Uvarint(b)
			if n <= 0 {
				return errTruncated
			}
			b = b[n:]
		case 1:
			if len(b) < 8 {
				return errTruncated
			}
			b = b[8:]
			continue
		case 2:
			l, n := binary.Uvarint(b)
			if n <= 0 || l > uint64(len(b)-n) {
				return errTruncated
			}
			data, b = b[n:n+int(l)], b[n+int(l):]
		case 5:
			if len(b) < 4 {
				return errTruncated
			}
			b = b[4:]
			continue
		default:
			return fmt.Errorf("feishu: a long-connection frame has wire type %d, which protobuf does not have", wire)
		}
		if err := fn(field, v, data); err != nil {
			return err
		}
	}
	return nil
}
