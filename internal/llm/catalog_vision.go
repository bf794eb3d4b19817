package llm

// visionModels says, by model family as a lower-case name fragment (matched
// as ContextWindow matches), whether the model takes images in user
// messages. A model none of these match is taken to be text-only: an image
// sent to a model that cannot see fails the whole request, and every later
// request of the session with it, while a vision model shown a file's path
// instead can still look at it with a tool. The entries that say false
// carve text-only models out of a family that sees. Read from the vendors'
// model pages in 2025.
var visionModels = []fragment[bool]{
	// OpenAI: GPT-4o, 4.1, 4 Turbo, 5 and the o1/o3/o4-mini reasoning
	// models take images; the minis of o1 and o3 and o1-preview do not.
	{"gpt-4o", true},
	{"gpt-4.1", true},
	{"gpt-4-turbo", true},
	{"gpt-5", true},
	{"o1", true},
	{"o1-mini", false},
	{"o1-preview", false},
	{"o3", true},
	{"o3-mini", false},
	{"o4-mini", true},

	// Anthropic: every Claude 3 and later model; Claude 2 and Instant
	// were text-only.
	{"claude", true},
	{"claude-2", false},
	{"claude-instant", false},

	// Google: every Gemini model.
	{"gemini", true},

	// Open models whose vision variants say so in the name: LLaVA,
	// Pixtral, Qwen-VL ("qwen2.5-vl-72b"), GLM-4V, Llama 3.2 Vision.
	{"llava", true},
	{"pixtral", true},
	{"vl", true},
	{"glm-4v", true},
	{"glm-4.5v", true},
	{"vision", true},
}

// SeesImages reports whether model takes images in its messages, as far as
// the built-in table knows; an unknown model is taken not to.
func SeesImages(model string) bool {
	sees, _ := longestMatch(model, visionModels)
	return sees
}
