package config

import (
	"fmt"
	"strings"
)

// KB configures the knowledge base.
type KB struct {
	// Sources are files, folders and URLs kept in the knowledge base:
	// hermes kb reindex and the start of hermes serve ingest them again,
	// which costs nothing for those unchanged.
	Sources []KBSource `yaml:"sources"`
	// Embedding names the model that embeds chunks and queries, through
	// its provider's OpenAI-compatible /embeddings endpoint; when set,
	// search fuses vector similarity with BM25. Empty is BM25 alone.
	Embedding KBEmbedding `yaml:"embedding"`
}

// KBEmbedding is kb.embedding.
type KBEmbedding struct {
	// Provider is a built-in provider or one defined under providers.
	Provider string `yaml:"provider"`
	// Model is the embedding model, as the provider names it
	// ("text-embedding-3-small", "nomic-embed-text").
	Model string `yaml:"model"`
}

// Set reports whether an embedding model is configured.
func (e KBEmbedding) Set() bool { return e.Provider != "" || e.Model != "" }

// KBSource is one entry of kb.sources.
type KBSource struct {
	// Path is a file, a folder or an http(s) URL; ~/ is the home
	// directory.
	Path string `yaml:"path"`
	// KB names the knowledge base (default "default").
	KB string `yaml:"kb"`
	// Tags tag every source ingested from Path.
	Tags []string `yaml:"tags"`
}

// validateKB checks kb.sources: every entry has a path, and names of
// knowledge bases and tags are what hermes kb accepts.
func validateKB(c *Config, where func(key string) string) []error {
	var errs []error
	if e := c.KB.Embedding; e.Set() {
		if isAuto(e.Provider) || !c.knownProvider(e.Provider) {
			errs = append(errs, badValue(where("kb.embedding.provider"), "kb.embedding.provider", e.Provider,
				"is not accepted; use one of "+providerNames()+", or a name defined under providers"))
		}
		if strings.TrimSpace(e.Model) == "" {
			errs = append(errs, badValue(where("kb.embedding.model"), "kb.embedding.model", e.Model,
				"is not accepted; name the embedding model, as in {provider: openai, model: text-embedding-3-small}"))
		}
	}
	for i, s := range c.KB.Sources {
		key := fmt.Sprintf("kb.sources[%d]", i)
		if strings.TrimSpace(s.Path) == "" {
			errs = append(errs, badValue(where(key+".path"), key+".path", s.Path, "is not accepted; give a file, a folder or an http(s) URL"))
		}
		if s.KB != "" && !KBName(s.KB) {
			errs = append(errs, badValue(where(key+".kb"), key+".kb", s.KB, "is not accepted; use 1–64 letters, digits, '_', '.' or '-', starting with a letter or digit"))
		}
		for j, t := range s.Tags {
			if !KBName(t) {
				k := fmt.Sprintf("%s.tags[%d]", key, j)
				errs = append(errs, badValue(where(k), k, t, "is not accepted; use 1–64 letters, digits, '_', '.' or '-', starting with a letter or digit"))
			}
		}
	}
	return errs
}

// KBName reports whether s can name a knowledge base or a tag: 1–64
// ASCII letters, digits, '_', '.' or '-', starting with a letter or
// digit, safe in a command line, a config file and the ",a,b," form tags
// are stored in. Package kb checks names with it too.
func KBName(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for i, c := range []byte(s) {
		alnum := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
		if !alnum && (i == 0 || c != '_' && c != '.' && c != '-') {
			return false
		}
	}
	return true
}
