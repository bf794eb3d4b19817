package app

import "slices"

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
