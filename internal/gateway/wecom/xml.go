package wecom

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
)

// maxCallbackBytes bounds a posted callback; real ones are a few KB.
const maxCallbackBytes = 64 << 10

// envelope is a posted callback before it is opened: only Encrypt is
// signed, so nothing else in it is believed.
type envelope struct {
	Encrypt string `xml:"Encrypt"`
}

// appMessage is a decrypted callback, with the fields the adapter uses.
type appMessage struct {
	ToUserName   string `xml:"ToUserName"`
	FromUserName string `xml:"FromUserName"`
	CreateTime   int64  `xml:"CreateTime"`
	MsgType      string `xml:"MsgType"`
	Content      string `xml:"Content"`
	MsgID        string `xml:"MsgId"`
	AgentID      int64  `xml:"AgentID"`
	Event        string `xml:"Event"`
	PicURL       string `xml:"PicUrl"`
}

// errDTD refuses a document that declares a DTD or entities: WeCom
// never sends one, and a parser that honoured one could be made to read
// files or expand a few bytes into gigabytes.
var errDTD = errors.New("a DOCTYPE or ENTITY declaration is not accepted")

// decodeXML parses data into v with Go's strict decoder after a first
// pass that refuses any DTD or entity declaration, so only the five
// predefined entities and character references are ever expanded. Text
// inside CDATA (what users write) may hold "<!" freely. data is already
// bounded by its reader.
func decodeXML(data []byte, v any) error {
	d := newXMLDecoder(data)
	root := ""
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("not XML: %w", err)
		}
		switch t := tok.(type) {
		case xml.Directive:
			return errDTD
		case xml.StartElement:
			if root == "" {
				root = t.Name.Local
			}
		}
	}
	if root != "xml" {
		return fmt.Errorf("the root element is <%s>, not <xml>", root)
	}
	return newXMLDecoder(data).Decode(v)
}

func newXMLDecoder(data []byte) *xml.Decoder {
	d := xml.NewDecoder(bytes.NewReader(data))
	d.Strict = true
	d.Entity = nil
	d.CharsetReader = func(charset string, _ io.Reader) (io.Reader, error) {
		return nil, fmt.Errorf("charset %q is not accepted; WeCom sends UTF-8", charset)
	}
	return d
}
