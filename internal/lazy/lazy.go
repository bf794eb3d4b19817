// Package lazy holds package-level tables that are built the first time
// they are used instead of when the program starts.
//
// Go runs the initializer of every package linked into a binary before
// main, so a regular expression compiled or a map filled at package level
// is paid for by every command hermes runs, `hermes version` included,
// whether it needs the table or not. sync.OnceValue defers the work but
// itself allocates when called at package level. A Value or Regexp
// declared as a composite literal is laid out by the compiler instead:
// it costs nothing at start-up, its first Get builds it once, and each
// later Get is one atomic load.
package lazy

import (
	"regexp"
	"sync"
)

// Value is a T built by New on the first call to Get; every call returns
// that same T. Declare it as a package-level composite literal whose New
// is a function, not the result of a call, so that nothing runs at init:
//
//	var stopWords = lazy.Value[map[string]bool]{New: buildStopWords}
//
// New runs at most once; when it panics, every Get panics with the same
// value, as sync.OnceValue does. A Value must not be copied.
type Value[T any] struct {
	// New builds the value. It must not call Get on the same Value.
	New func() T

	once     sync.Once
	v        T
	panicked any
}

// Get returns the value, building it on the first call. It is safe for
// concurrent use.
func (l *Value[T]) Get() T {
	l.once.Do(l.build)
	if l.panicked != nil {
		panic(l.panicked)
	}
	return l.v
}

func (l *Value[T]) build() {
	defer func() {
		if p := recover(); p != nil {
			l.panicked = p
		}
	}()
	l.v = l.New()
}

// Regexp is a regular expression compiled on the first call to Get.
// Declare it as a package-level composite literal:
//
//	var blankLines = lazy.Regexp{Expr: `\n{3,}`}
//
// An Expr that does not compile makes every Get panic, as
// regexp.MustCompile would have at start-up. A Regexp must not be copied.
type Regexp struct {
	// Expr is the expression, in the syntax regexp.Compile accepts.
	Expr string

	once sync.Once
	re   *regexp.Regexp
	err  error
}

// Get returns the compiled expression. It is safe for concurrent use.
func (r *Regexp) Get() *regexp.Regexp {
	r.once.Do(r.compile)
	if r.err != nil {
		panic("lazy: regexp: " + r.err.Error())
	}
	return r.re
}

func (r *Regexp) compile() { r.re, r.err = regexp.Compile(r.Expr) }
