package agent

// The repeat guard (seed 003 §4.1): a model stuck in a loop calls the same
// tool with the same arguments again and again. The third identical call in
// a row is answered with a warning instead of running; the fourth stops the
// turn and hands the user what was done so far.
const (
	warnAt = 3
	stopAt = 4
)

type guardVerdict int

const (
	guardRun guardVerdict = iota
	guardWarn
	guardStop
)

// repeatGuard counts how many times in a row the same call was made. The
// sequence runs across replies within one turn; a different call resets it.
type repeatGuard struct {
	last  string
	count int
}

// observe records one call, identified by its tool name and arguments, and
// says what to do with it.
func (g *repeatGuard) observe(key string) guardVerdict {
	if key == g.last {
		g.count++
	} else {
		g.last, g.count = key, 1
	}
	switch {
	case g.count >= stopAt:
		return guardStop
	case g.count == warnAt:
		return guardWarn
	}
	return guardRun
}
