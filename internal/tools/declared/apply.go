package declared

import (
	"cmp"
	"fmt"
	"log/slog"
	"slices"
	"strings"

	"github.com/hermes-go/hermes/internal/tool"
)

// apply checks what only all files together can tell (duplicate names,
// sql connections) and swaps the registry to the result in one step.
func (l *Loader) apply(files []*fileState) error {
	var problems []Problem
	for _, f := range files {
		problems = append(problems, f.problems...)
	}
	conns, connProblems := l.connections(files)
	problems = append(problems, connProblems...)

	want := map[string]*Tool{}
	declaredIn := map[string]*Tool{}
	for _, f := range files {
		for _, t := range f.tools {
			fail := func(format string, args ...any) {
				problems = append(problems, Problem{File: t.file, Line: t.line, Tool: t.Name(), Err: fmt.Errorf(format, args...)})
			}
			if first := declaredIn[t.Name()]; first != nil {
				fail("name: %q is already declared in %s:%d; tool names must be unique", t.Name(), first.file, first.line)
				continue
			}
			declaredIn[t.Name()] = t
			if other, ok := l.opts.Registry.Get(t.Name()); ok && l.tools[t.Name()] != other {
				fail("name: %q is already taken by a tool of toolset %q; choose another name", t.Name(), other.Spec().Toolset)
				continue
			}
			if t.sql != nil {
				bound, err := bindSQL(t, conns)
				if err != nil {
					fail("%v", err)
					continue
				}
				t = bound
			}
			want[t.Name()] = t
		}
	}
	l.swap(want, &problems)
	l.creds = l.creds[:0]
	for _, t := range l.tools {
		for _, n := range t.CredentialNames() {
			if !slices.Contains(l.creds, n) {
				l.creds = append(l.creds, n)
			}
		}
	}
	slices.Sort(l.creds)
	l.retireConnections(conns)
	l.setProblems(problems)
	return nil
}

// bindSQL checks an sql tool against its connection and returns a copy
// bound to it.
func bindSQL(t *Tool, conns map[string]*sqlConn) (*Tool, error) {
	c := conns[t.sql.q.Connection]
	if c == nil {
		names := slices.Sorted(func(yield func(string) bool) {
			for k := range conns {
				if !yield(k) {
					return
				}
			}
		})
		list := strings.Join(names, ", ")
		if list == "" {
			list = "none"
		}
		return nil, fmt.Errorf("sql.connection: %q is not declared under connections: of any tools file (connections: %s)", t.sql.q.Connection, list)
	}
	if err := checkSQL(t.sql.q, c.def.Driver); err != nil {
		return nil, fmt.Errorf("sql.query: %w", err)
	}
	nt := *t
	plan := *t.sql
	plan.conn = c
	nt.sql = &plan
	nt.fingerprint = t.fingerprint + "\x00" + c.key()
	return &nt, nil
}

// connections gathers the connections of every file. A name declared
// twice is a problem at the second place; a definition that did not
// change keeps its open connection.
func (l *Loader) connections(files []*fileState) (map[string]*sqlConn, []Problem) {
	var problems []Problem
	out := map[string]*sqlConn{}
	where := map[string]string{}
	for _, f := range files {
		for _, pc := range f.conns {
			if w, dup := where[pc.name]; dup {
				problems = append(problems, Problem{File: f.display, Line: pc.line,
					Err: fmt.Errorf("connections.%s: already declared in %s; connection names are shared by all tools files", pc.name, w)})
				continue
			}
			if err := checkConnection(pc.conn); err != nil {
				problems = append(problems, Problem{File: f.display, Line: pc.line, Err: fmt.Errorf("connections.%s: %w", pc.name, err)})
				continue
			}
			where[pc.name] = fmt.Sprintf("%s:%d", f.display, pc.line)
			c := &sqlConn{name: pc.name, def: pc.conn, dir: pc.dir, env: l.opts.Env}
			if old := l.conns[pc.name]; old != nil && old.key() == c.key() {
				c = old
			}
			out[pc.name] = c
		}
	}
	return out, problems
}

// retireConnections closes connections whose definition changed or went
// away, and keeps the rest.
func (l *Loader) retireConnections(now map[string]*sqlConn) {
	for name, c := range l.conns {
		if now[name] != c {
			if err := c.Close(); err != nil {
				l.warn("closing a connection failed", slog.String("connection", name), slog.Any("error", err))
			}
		}
	}
	l.conns = now
}

// swap changes the registry from the tools registered now to want in one
// Registry.Swap; a tool whose declaration did not change stays as it is.
// Should the swap be refused as a whole, the tools are added one by one
// so one refused tool does not keep the others out.
func (l *Loader) swap(want map[string]*Tool, problems *[]Problem) {
	var remove []string
	var add []tool.Tool
	for name, t := range l.tools {
		if w := want[name]; w == nil || w.fingerprint != t.fingerprint {
			remove = append(remove, name)
		}
	}
	for name, w := range want {
		if t := l.tools[name]; t == nil || w.fingerprint != t.fingerprint {
			add = append(add, w)
		}
	}
	slices.Sort(remove)
	slices.SortFunc(add, func(a, b tool.Tool) int { return cmp.Compare(a.Spec().Name, b.Spec().Name) })
	if len(remove) == 0 && len(add) == 0 {
		return
	}
	reg := l.opts.Registry
	if err := reg.Swap(remove, add); err == nil {
		for _, name := range remove {
			delete(l.tools, name)
		}
		for _, t := range add {
			l.tools[t.Spec().Name] = t.(*Tool)
		}
		return
	}
	reg.Unregister(remove...)
	for _, name := range remove {
		delete(l.tools, name)
	}
	for _, t := range add {
		dt := t.(*Tool)
		if err := reg.Register(dt); err != nil {
			*problems = append(*problems, Problem{File: dt.file, Line: dt.line, Tool: dt.Name(), Err: err})
			continue
		}
		l.tools[dt.Name()] = dt
	}
}
