package telegramtest

import (
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
)

// params are a call's parameters, from the query string, a form, a
// multipart form or a JSON body, as the Bot API accepts them all. Values
// are kept as text: a JSON string is unquoted, anything else is its JSON
// text, as a form would carry it.
type params struct {
	v     map[string]string
	files map[string]upload
}

type upload struct {
	name string
	data []byte
}

// maxUpload bounds a multipart body (the Bot API takes 50 MB documents).
const maxUpload = 50 << 20

func readParams(r *http.Request) (params, error) {
	p := params{v: map[string]string{}, files: map[string]upload{}}
	for k, vs := range r.URL.Query() {
		p.v[k] = vs[0]
	}
	if r.Method != http.MethodPost {
		return p, nil
	}
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	switch ct {
	case "application/json":
		var body map[string]json.RawMessage
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			return p, fmt.Errorf("can't parse JSON body: %v", err)
		}
		for k, raw := range body {
			var s string
			if json.Unmarshal(raw, &s) == nil {
				p.v[k] = s
			} else {
				p.v[k] = string(raw)
			}
		}
	case "application/x-www-form-urlencoded":
		if err := r.ParseForm(); err != nil {
			return p, err
		}
		for k, vs := range r.PostForm {
			p.v[k] = vs[0]
		}
	case "multipart/form-data":
		if err := r.ParseMultipartForm(maxUpload); err != nil {
			return p, err
		}
		for k, vs := range r.MultipartForm.Value {
			p.v[k] = vs[0]
		}
		for k, fhs := range r.MultipartForm.File {
			f, err := fhs[0].Open()
			if err != nil {
				return p, err
			}
			data, err := io.ReadAll(f)
			f.Close()
			if err != nil {
				return p, err
			}
			p.files[k] = upload{name: fhs[0].Filename, data: data}
		}
	}
	return p, nil
}

func (p params) str(name string) string { return p.v[name] }

func (p params) has(name string) bool { _, ok := p.v[name]; return ok }

// int returns an integer parameter; absent is 0.
func (p params) int(name string) (int64, *apiError) {
	s, ok := p.v[name]
	if !ok || s == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil {
		return 0, badRequest("invalid %s specified", name)
	}
	return n, nil
}

// json decodes a parameter that holds a JSON object or array; absent
// leaves v alone.
func (p params) json(name string, v any) *apiError {
	s, ok := p.v[name]
	if !ok || s == "" {
		return nil
	}
	if err := json.Unmarshal([]byte(s), v); err != nil {
		return badRequest("can't parse %s JSON object", name)
	}
	return nil
}

// chatID returns chat_id, which must be given.
func (p params) chatID() (int64, *apiError) {
	if !p.has("chat_id") {
		return 0, badRequest("chat_id is empty")
	}
	id, err := p.int("chat_id")
	if err != nil {
		return 0, badRequest("chat not found")
	}
	return id, nil
}
