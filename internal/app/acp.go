package app

import (
	"context"
	"slices"
	"time"

	"github.com/hermes-go/hermes/internal/llm"
)

// ModelChoices are the models a front may let its user pick for a
// session, the main one first: the main model and the fallback models
// served by the main model's provider, since a turn's model is called by
// name on that provider (engine.Input.Model). Empty when no main model
// resolves.
func (a *App) ModelChoices() []string {
	main, err := a.Models.Main()
	if err != nil || main.Model == "" {
		return nil
	}
	out := []string{main.Model}
	fallbacks, _ := a.Config.ResolveFallbacks()
	for _, fb := range fallbacks {
		if fb.Provider == main.Provider && fb.Model != "" && !slices.Contains(out, fb.Model) {
			out = append(out, fb.Model)
		}
	}
	return out
}

// ListModels is ModelChoices followed by what the main model's provider
// serves (its /models), for a picker; a provider that cannot list gives
// the choices alone, and the error says why.
func (a *App) ListModels(ctx context.Context) ([]string, error) {
	out := a.ModelChoices()
	m, err := a.Models.Model("")
	if err != nil {
		return out, err
	}
	lister, ok := m.Provider.(llm.ModelLister)
	if !ok {
		return out, nil
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	served, err := lister.ListModels(ctx)
	for _, s := range served {
		if !slices.Contains(out, s.ID) {
			out = append(out, s.ID)
		}
	}
	return out, err
}
