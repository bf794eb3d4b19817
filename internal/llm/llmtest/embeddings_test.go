package llmtest

import (
	"bytes"
	"encoding/json"
	"math"
	"net/http"
	"testing"
)

func cosine(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

func TestEmbedIsDeterministicNormalizedAndSimilar(t *testing.T) {
	a := Embed("the deploy pipeline runs nightly tests")
	if b := Embed("the deploy pipeline runs nightly tests"); cosine(a, b) < 0.9999 {
		t.Errorf("same text, cosine %f", cosine(a, b))
	}
	if n := cosine(a, a); math.Abs(n-1) > 1e-5 {
		t.Errorf("norm² %f, want 1", n)
	}
	near := cosine(a, Embed("nightly tests of the deploy pipeline"))
	far := cosine(a, Embed("quarterly budget approved by finance"))
	if near <= far || near < 0.8 {
		t.Errorf("similar text cosine %f, unrelated %f", near, far)
	}
	zh := Embed("数据库迁移计划")
	if cosine(zh, Embed("数据库迁移")) <= cosine(zh, Embed("预算审批流程")) {
		t.Error("CJK bigrams do not bring similar texts closer")
	}
	if len(a) != EmbeddingDims {
		t.Errorf("len %d", len(a))
	}
}

func TestServeEmbeddings(t *testing.T) {
	s := New(t)
	post := func(body string) (*http.Response, map[string]any) {
		resp, err := http.Post(s.URL()+"/v1/embeddings", "application/json", bytes.NewBufferString(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&out)
		return resp, out
	}
	resp, out := post(`{"model":"emb","input":["alpha beta","gamma"]}`)
	if resp.StatusCode != 200 {
		t.Fatalf("status %d %v", resp.StatusCode, out)
	}
	data := out["data"].([]any)
	if len(data) != 2 || out["model"] != "emb" || out["usage"] == nil {
		t.Fatalf("reply %v", out)
	}
	second := data[1].(map[string]any)
	vec := second["embedding"].([]any)
	if second["index"].(float64) != 1 || len(vec) != EmbeddingDims || float32(vec[0].(float64)) != Embed("gamma")[0] {
		t.Errorf("second item %v", second)
	}
	if _, out := post(`{"model":"emb","input":"one"}`); len(out["data"].([]any)) != 1 {
		t.Errorf("single string input: %v", out)
	}
	if s.EmbeddingCalls() != 2 {
		t.Errorf("calls %d", s.EmbeddingCalls())
	}
}

func TestServeEmbeddingsRejectsBadInput(t *testing.T) {
	s := NewServer()
	defer s.Close()
	for _, body := range []string{`{"model":"m","input":[]}`, `{"model":"m","input":3}`, `{"input":"x"}`, `nope`} {
		resp, err := http.Post(s.URL()+"/v1/embeddings", "application/json", bytes.NewBufferString(body))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("%s: status %d, want 400", body, resp.StatusCode)
		}
	}
	if len(s.Violations()) != 4 {
		t.Errorf("violations %v", s.Violations())
	}
}
