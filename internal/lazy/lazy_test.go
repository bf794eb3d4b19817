package lazy

import (
	"fmt"
	"strings"
	"sync"
	"testing"
)

func TestValueBuildsOnceOnFirstGet(t *testing.T) {
	calls := 0
	v := &Value[[]string]{New: func() []string { calls++; return []string{"a", "b"} }}
	if calls != 0 {
		t.Fatalf("New ran %d times before Get", calls)
	}
	for range 3 {
		if got := v.Get(); len(got) != 2 || got[0] != "a" {
			t.Fatalf("Get = %q, want [a b]", got)
		}
	}
	if calls != 1 {
		t.Fatalf("New ran %d times for 3 Gets, want 1", calls)
	}
}

func TestValueConcurrentGetsShareOneBuild(t *testing.T) {
	var mu sync.Mutex
	calls := 0
	v := &Value[*int]{New: func() *int {
		mu.Lock()
		calls++
		mu.Unlock()
		n := 42
		return &n
	}}
	got := make([]*int, 8)
	var wg sync.WaitGroup
	for i := range got {
		wg.Go(func() { got[i] = v.Get() })
	}
	wg.Wait()
	for i, p := range got {
		if p != got[0] || *p != 42 {
			t.Fatalf("Get %d returned %p (%d), Get 0 returned %p", i, p, *p, got[0])
		}
	}
	if calls != 1 {
		t.Fatalf("New ran %d times, want 1", calls)
	}
}

func TestValueRepeatsThePanicOfNew(t *testing.T) {
	calls := 0
	v := &Value[int]{New: func() int { calls++; panic("bad table") }}
	for i := range 2 {
		func() {
			defer func() {
				if p := recover(); p != "bad table" {
					t.Errorf("Get %d panicked with %v, want \"bad table\"", i, p)
				}
			}()
			v.Get()
		}()
	}
	if calls != 1 {
		t.Fatalf("New ran %d times, want 1", calls)
	}
}

func TestRegexpCompilesOnFirstGet(t *testing.T) {
	r := &Regexp{Expr: `\d+`}
	first := r.Get()
	if !first.MatchString("a1") || r.Get() != first {
		t.Fatalf("Get did not return one compiled %q", r.Expr)
	}
}

func TestRegexpBadExprPanicsOnEveryGet(t *testing.T) {
	r := &Regexp{Expr: `a(`}
	for i := range 2 {
		func() {
			defer func() {
				p := fmt.Sprint(recover())
				if !strings.Contains(p, "missing closing )") || !strings.Contains(p, "a(") {
					t.Errorf("Get %d panicked with %q, want the parse error naming the expression", i, p)
				}
			}()
			r.Get()
		}()
	}
}

func TestGetAfterFirstDoesNotAllocate(t *testing.T) {
	v := &Value[map[string]bool]{New: func() map[string]bool { return map[string]bool{"x": true} }}
	r := &Regexp{Expr: `x`}
	v.Get()
	r.Get()
	if n := testing.AllocsPerRun(100, func() { v.Get(); r.Get() }); n != 0 {
		t.Fatalf("Get allocates %.0f times per call after the first, want 0", n)
	}
}

var benchValue = Value[[]int]{New: func() []int { return []int{1, 2, 3} }}

func BenchmarkValueGet(b *testing.B) {
	for b.Loop() {
		_ = benchValue.Get()
	}
}
