package engine

// CachedPrompt returns the system prompt the engine holds for session id,
// so the package's external tests can see what its cache keeps.
func (e *Engine) CachedPrompt(id string) string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.prompts[id]
}
