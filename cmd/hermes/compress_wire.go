package main

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/hermes-go/hermes/compress"
	"github.com/hermes-go/hermes/config"
	"github.com/hermes-go/hermes/llm"
)

// newCompressor builds the context compressor for the main model: its
// window from model.context_length, else the built-in table of model
// families, else 128k; the summary written by auxiliary.compression or
// the main model. Nil when compression.enabled is false.
func newCompressor(ctx context.Context, l *config.Loaded, main llm.Provider, r config.Resolved, log *slog.Logger) (*compress.Compressor, *llm.Window, error) {
	c := l.Config.Compression
	if !c.Enabled.Or(true) {
		return nil, nil, nil
	}
	p, model, err := auxModel(l, "auxiliary.compression", l.Config.Auxiliary.Compression, main, r, log)
	if err != nil {
		return nil, nil, err
	}
	w := llm.NewWindow(r.Model, r.ContextLength)
	if _, known := llm.ContextWindow(r.Model); !known && r.ContextLength == 0 {
		// A model the table does not know (a local one, often): ask the
		// server, which is usually on this machine and answers at once.
		if err := w.Probe(ctx, r.Endpoint(), nil); err != nil {
			log.Info("context window not learned from the server; using the default", "error", err)
		}
	}
	window := w.Tokens()
	reply := r.MaxTokens
	if reply <= 0 {
		reply = min(8_192, window/8)
	}
	comp, err := compress.New(compress.Options{
		Window: window, ReplyBudget: reply,
		Threshold: c.Threshold, TargetRatio: c.TargetRatio, ProtectFirstN: c.ProtectFirstN,
		Summarizer: compress.ModelSummarizer{Provider: p, Model: model},
		Logger:     log,
	})
	if err != nil {
		return nil, nil, fmt.Errorf("config.yaml: compression: %w", err)
	}
	return comp, w, nil
}
