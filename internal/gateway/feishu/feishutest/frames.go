package feishutest

import (
	"encoding/binary"
	"fmt"
)

// Frame is the long connection's pbbp2.Frame, as Feishu's servers write
// it: SeqID=1, LogID=2, service=3, method=4 (varints), headers=5
// (messages of key=1, value=2), payload_encoding=6, payload_type=7,
// payload=8, LogIDNew=9.
type Frame struct {
	SeqID, LogID    uint64
	Service, Method int32
	Headers         map[string]string
	// Order keeps the headers' order as written.
	Order   []string
	Payload []byte
}

func putKey(b []byte, field, wire int) []byte { return binary.AppendUvarint(b, uint64(field<<3|wire)) }

func putBytes(b []byte, field int, v []byte) []byte {
	b = putKey(b, field, 2)
	b = binary.AppendUvarint(b, uint64(len(v)))
	return append(b, v...)
}

// Marshal encodes f.
func (f Frame) Marshal() []byte {
	var b []byte
	for i, v := range []uint64{f.SeqID, f.LogID, uint64(int64(f.Service)), uint64(int64(f.Method))} {
		b = binary.AppendUvarint(putKey(b, i+1, 0), v)
	}
	for _, k := range f.Order {
		h := putBytes(putBytes(nil, 1, []byte(k)), 2, []byte(f.Headers[k]))
		b = putBytes(b, 5, h)
	}
	if f.Payload != nil {
		b = putBytes(b, 8, f.Payload)
	}
	return b
}

// Set sets a header, keeping the order.
func (f *Frame) Set(k, v string) {
	if f.Headers == nil {
		f.Headers = map[string]string{}
	}
	if _, ok := f.Headers[k]; !ok {
		f.Order = append(f.Order, k)
	}
	f.Headers[k] = v
}

// UnmarshalFrame decodes a frame strictly: a field of an unknown number or
// of the wrong wire type is an error, so a client that writes the frame
// wrong is caught.
func UnmarshalFrame(b []byte) (Frame, error) {
	var f Frame
	var required int
	for len(b) > 0 {
		key, n := binary.Uvarint(b)
		if n <= 0 {
			return f, fmt.Errorf("frame: bad key")
		}
		b = b[n:]
		field, wire := int(key>>3), int(key&7)
		want := 2
		if field >= 1 && field <= 4 {
			want = 0
		}
		if field < 1 || field > 9 || wire != want {
			return f, fmt.Errorf("frame: field %d with wire type %d", field, wire)
		}
		v, n := binary.Uvarint(b)
		if n <= 0 {
			return f, fmt.Errorf("frame: field %d cut short", field)
		}
		b = b[n:]
		if wire == 0 {
			required |= 1 << field
			switch field {
			case 1:
				f.SeqID = v
			case 2:
				f.LogID = v
			case 3:
				f.Service = int32(v)
			case 4:
				f.Method = int32(v)
			}
			continue
		}
		if v > uint64(len(b)) {
			return f, fmt.Errorf("frame: field %d cut short", field)
		}
		data := b[:v]
		b = b[v:]
		switch field {
		case 5:
			k, val, err := header(data)
			if err != nil {
				return f, err
			}
			f.Set(k, val)
		case 8:
			f.Payload = append([]byte{}, data...)
		}
	}
	if required != 0b11110 {
		return f, fmt.Errorf("frame: a required field of SeqID, LogID, service and method is missing")
	}
	return f, nil
}

// header decodes a Header message.
func header(b []byte) (k, v string, err error) {
	for len(b) > 0 {
		key, n := binary.Uvarint(b)
		if n <= 0 || key&7 != 2 {
			return "", "", fmt.Errorf("frame: bad header")
		}
		b = b[n:]
		l, n := binary.Uvarint(b)
		if n <= 0 || l > uint64(len(b)-n) {
			return "", "", fmt.Errorf("frame: header cut short")
		}
		s := string(b[n : n+int(l)])
		b = b[n+int(l):]
		switch key >> 3 {
		case 1:
			k = s
		case 2:
			v = s
		}
	}
	return k, v, nil
}
