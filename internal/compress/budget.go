package compress

import "math"

// Defaults of the knobs in Options, as in Hermes Agent.
const (
	// DefaultThreshold is the fraction of the usable window (window minus
	// reply budget) past which a conversation is compressed.
	DefaultThreshold = 0.50
	// DefaultTargetRatio is the fraction of the threshold kept verbatim as
	// the tail: the tail budget is Threshold × TargetRatio of the window.
	DefaultTargetRatio = 0.20
	// DefaultProtectFirstN is how many leading messages are kept before
	// the first compression.
	DefaultProtectFirstN = 3
	// MinTailMessages is the fewest messages the tail keeps, whatever the
	// token budget says.
	MinTailMessages = 3
)

// Summary budget bounds, in tokens: the summary gets SummaryRatio of the
// content it replaces, at least MinSummaryTokens, and at most 5% of the
// window or MaxSummaryTokens, whichever is smaller.
const (
	SummaryRatio        = 0.20
	MinSummaryTokens    = 2000
	MaxSummaryTokens    = 12000
	summaryWindowFactor = 0.05
)

// Usable returns the tokens a conversation may fill: the context window
// less the tokens reserved for the model's reply. It is never negative.
func Usable(window, replyBudget int) int {
	return max(0, window-replyBudget)
}

// ShouldCompress reports whether a conversation estimated at estimate
// tokens has passed threshold of the usable window. A threshold outside
// (0, 1] is taken as DefaultThreshold, so a zero value behaves sensibly.
func ShouldCompress(estimate, window, replyBudget int, threshold float64) bool {
	if threshold <= 0 || threshold > 1 {
		threshold = DefaultThreshold
	}
	limit := threshold * float64(Usable(window, replyBudget))
	return float64(estimate) > limit
}

// TailBudget returns the tokens kept verbatim at the end of the
// conversation: threshold × targetRatio of the window.
func TailBudget(window int, threshold, targetRatio float64) int {
	return int(math.Floor(float64(window) * threshold * targetRatio))
}

// SummaryBudget returns the tokens the summary of content tokens of
// conversation may take in a window of window tokens:
// max(2000, min(content × 0.20, min(5% of window, 12000))).
func SummaryBudget(content, window int) int {
	ceiling := min(int(float64(window)*summaryWindowFactor), MaxSummaryTokens)
	return max(MinSummaryTokens, min(int(float64(content)*SummaryRatio), ceiling))
}
