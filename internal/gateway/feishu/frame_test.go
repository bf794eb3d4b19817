package feishu

import (
	"bytes"
	"encoding/hex"
	"testing"
)

// The ping frame is byte for byte what Feishu's SDK writes (its gogo
// protobuf code writes every field but an absent payload, in order), and
// frames read back whole, skipping fields a newer Feishu might add.
func TestFrameEncoding(t *testing.T) {
	ping := frame{Service: 7, Method: methodControl, Headers: []header{{"type", "ping"}}}
	const want = "08001000180720002a0c0a04747970651204" + "70696e67" + "32003a004a00"
	if got := hex.EncodeToString(ping.marshal()); got != want {
		t.Errorf("ping = %s, want %s", got, want)
	}
	f := frame{SeqID: 300, LogID: 1 << 40, Service: 33, Method: methodData,
		Headers:         []header{{"type", "event"}, {"message_id", "m1"}, {"sum", "1"}},
		PayloadEncoding: "json", PayloadType: "event", Payload: []byte(`{"schema":"2.0"}`), LogIDNew: "L"}
	b := f.marshal()
	// A fixed64 field 10, a fixed32 field 11 and a varint field 12, unknown.
	b = append(b, 0x51, 1, 2, 3, 4, 5, 6, 7, 8, 0x5d, 1, 2, 3, 4, 0x60, 0x96, 0x01)
	got, err := unmarshalFrame(b)
	if err != nil || got.SeqID != 300 || got.LogID != 1<<40 || got.Service != 33 || got.Method != methodData ||
		got.get("message_id") != "m1" || len(got.Headers) != 3 || !bytes.Equal(got.Payload, f.Payload) ||
		got.PayloadType != "event" || got.PayloadEncoding != "json" || got.LogIDNew != "L" {
		t.Errorf("round trip = %+v, %v", got, err)
	}
	if _, err := unmarshalFrame([]byte{0x2a, 0x10, 0x0a}); err == nil {
		t.Error("a header longer than the frame was read")
	}
	if _, err := unmarshalFrame([]byte{0x0b}); err == nil {
		t.Error("wire type 3 was read")
	}
}
