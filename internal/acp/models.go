package acp

import (
	"context"
	"fmt"
	"slices"
	"strings"

	acpsdk "github.com/coder/acp-go-sdk"
)

// The ids of the session config options hermes offers.
const (
	configMode  = "mode"
	configModel = "model"
)

// currentModel is the id of the model the session's turns call: the one
// picked, else the main model (the first of Options.Models).
func (s *Server) currentModel(st *state) string {
	if st.model != "" {
		return st.model
	}
	if len(s.opt.Models) > 0 {
		return s.opt.Models[0]
	}
	return ""
}

// modelState is the models announced with a session; nil when hermes has
// no model to offer.
func (s *Server) modelState(st *state) *acpsdk.SessionModelState {
	if len(s.opt.Models) == 0 {
		return nil
	}
	out := &acpsdk.SessionModelState{CurrentModelId: acpsdk.ModelId(s.currentModel(st))}
	for _, m := range s.opt.Models {
		out.AvailableModels = append(out.AvailableModels, acpsdk.ModelInfo{ModelId: acpsdk.ModelId(m), Name: m})
	}
	return out
}

// setModel makes the session's next turns call model, which must be one
// of Options.Models; the main model is asked for as no model at all, so
// that it keeps its command-line overrides and fallbacks.
func (s *Server) setModel(id, model string) error {
	if !slices.Contains(s.opt.Models, model) {
		accepted := "none: no model is configured"
		if len(s.opt.Models) > 0 {
			accepted = strings.Join(s.opt.Models, ", ")
		}
		return acpsdk.NewInvalidParams(map[string]any{
			"modelId": model, "error": fmt.Sprintf("model %q is not offered; the models are %s (model.default and fallback_providers in config.yaml)", model, accepted),
		})
	}
	if model == s.opt.Models[0] {
		model = ""
	}
	if err := s.update(id, func(st *state) { st.model = model }); err != nil {
		return err
	}
	s.opt.Logger.Info("acp session model changed", "session_id", id, "model", model)
	return nil
}

// UnstableSetSessionModel picks the model of the session's next turns.
func (s *Server) UnstableSetSessionModel(_ context.Context, p acpsdk.UnstableSetSessionModelRequest) (acpsdk.UnstableSetSessionModelResponse, error) {
	if err := s.setModel(string(p.SessionId), string(p.ModelId)); err != nil {
		return acpsdk.UnstableSetSessionModelResponse{}, err
	}
	return acpsdk.UnstableSetSessionModelResponse{}, nil
}

// SetSessionConfigOption sets the session's mode or model, the two
// options hermes announces, and answers with both as they are now.
func (s *Server) SetSessionConfigOption(_ context.Context, p acpsdk.SetSessionConfigOptionRequest) (acpsdk.SetSessionConfigOptionResponse, error) {
	v := p.ValueId
	if v == nil {
		return acpsdk.SetSessionConfigOptionResponse{}, acpsdk.NewInvalidParams(map[string]any{
			"value": "boolean", "error": "hermes's config options (mode, model) take one of their listed values, not a boolean",
		})
	}
	id := string(v.SessionId)
	var err error
	switch v.ConfigId {
	case configMode:
		err = s.setMode(id, string(v.Value))
	case configModel:
		err = s.setModel(id, string(v.Value))
	default:
		err = acpsdk.NewInvalidParams(map[string]any{
			"configId": string(v.ConfigId), "error": fmt.Sprintf("config option %q is not one of hermes's; use %s or %s", v.ConfigId, configMode, configModel),
		})
	}
	if err != nil {
		return acpsdk.SetSessionConfigOptionResponse{}, err
	}
	return acpsdk.SetSessionConfigOptionResponse{ConfigOptions: s.configOptions(id)}, nil
}

// configOptions are the session's options as they are now: its mode, and
// its model when hermes has models to offer.
func (s *Server) configOptions(id string) []acpsdk.SessionConfigOption {
	s.mu.Lock()
	st, ok := s.sessions[id]
	var mode, model string
	if ok {
		mode, model = st.mode, s.currentModel(st)
	}
	s.mu.Unlock()
	if !ok {
		return nil
	}
	var modes []acpsdk.SessionConfigSelectOption
	for _, m := range sessionModes() {
		d := m.description
		modes = append(modes, acpsdk.SessionConfigSelectOption{Value: acpsdk.SessionConfigValueId(m.id), Name: m.name, Description: &d})
	}
	out := []acpsdk.SessionConfigOption{selectOption(configMode, "Approval mode", acpsdk.SessionConfigOptionCategoryMode, mode, modes)}
	if len(s.opt.Models) > 0 {
		var models []acpsdk.SessionConfigSelectOption
		for _, m := range s.opt.Models {
			models = append(models, acpsdk.SessionConfigSelectOption{Value: acpsdk.SessionConfigValueId(m), Name: m})
		}
		out = append(out, selectOption(configModel, "Model", acpsdk.SessionConfigOptionCategoryModel, model, models))
	}
	return out
}

// selectOption is a config option picked from a list.
func selectOption(id, name string, category acpsdk.SessionConfigOptionCategory, current string, opts []acpsdk.SessionConfigSelectOption) acpsdk.SessionConfigOption {
	ungrouped := acpsdk.SessionConfigSelectOptionsUngrouped(opts)
	return acpsdk.SessionConfigOption{Select: &acpsdk.SessionConfigOptionSelect{
		Id: acpsdk.SessionConfigId(id), Name: name, Category: &category, Type: "select",
		CurrentValue: acpsdk.SessionConfigValueId(current),
		Options:      acpsdk.SessionConfigSelectOptions{Ungrouped: &ungrouped},
	}}
}
