// Package logctx carries log attributes in a context, so every line
// logged with it says which turn it belongs to (session_id, turn_id,
// user, platform, job) without each package being handed them.
package logctx

import (
	"context"
	"log/slog"
	"slices"
)

type key struct{}

// With returns ctx carrying attrs besides those it carries already; a
// key given again replaces the earlier value.
func With(ctx context.Context, attrs ...slog.Attr) context.Context {
	old, _ := ctx.Value(key{}).([]slog.Attr)
	merged := make([]slog.Attr, 0, len(old)+len(attrs))
	for _, a := range old {
		if !slices.ContainsFunc(attrs, func(b slog.Attr) bool { return b.Key == a.Key }) {
			merged = append(merged, a)
		}
	}
	for _, a := range attrs {
		if a.Value.Kind() == slog.KindString && a.Value.String() == "" {
			continue // an empty user or agent says nothing
		}
		merged = append(merged, a)
	}
	return context.WithValue(ctx, key{}, merged)
}

// Attrs returns the attributes ctx carries.
func Attrs(ctx context.Context) []slog.Attr {
	a, _ := ctx.Value(key{}).([]slog.Attr)
	return a
}

// Handler adds to each record the attributes of its context that the
// record does not hold itself.
func Handler(inner slog.Handler) slog.Handler { return handler{inner} }

type handler struct{ inner slog.Handler }

func (h handler) Enabled(ctx context.Context, l slog.Level) bool { return h.inner.Enabled(ctx, l) }

func (h handler) Handle(ctx context.Context, r slog.Record) error {
	attrs := Attrs(ctx)
	if len(attrs) == 0 {
		return h.inner.Handle(ctx, r)
	}
	have := map[string]bool{}
	r.Attrs(func(a slog.Attr) bool {
		have[a.Key] = true
		return true
	})
	r = r.Clone()
	for _, a := range attrs {
		if !have[a.Key] {
			r.AddAttrs(a)
		}
	}
	return h.inner.Handle(ctx, r)
}

func (h handler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return handler{h.inner.WithAttrs(attrs)}
}

func (h handler) WithGroup(name string) slog.Handler { return handler{h.inner.WithGroup(name)} }
