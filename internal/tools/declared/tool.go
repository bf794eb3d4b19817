package declared

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/hermes-go/hermes/internal/tool"
)

// Tool is a declared tool: an HTTP request, a command or an SQL statement
// built from a Spec's templates. It implements tool.Tool. A Tool is
// immutable once loaded; a reload makes new ones, so calls in flight
// finish with the version they started with.
type Tool struct {
	spec     tool.Spec
	decl     Spec
	file     string
	line     int
	dir      string
	kind     string
	approval bool
	refs     []envRef
	env      func(string) (string, bool)
	clients  *clients
	fallback tool.Approver

	http *httpPlan
	cmd  *cmdPlan
	sql  *sqlPlan

	// fingerprint identifies the tool's declaration; a reload leaves a
	// tool whose fingerprint did not change registered as it is.
	fingerprint string
}

// Spec returns the tool's spec for the registry.
func (t *Tool) Spec() tool.Spec { return t.spec }

// Name is the tool's name.
func (t *Tool) Name() string { return t.spec.Name }

// File is the file that declares the tool, as shown to people
// ("tools/orders.yaml", "config.yaml").
func (t *Tool) File() string { return t.file }

// Line is the line of the file where the tool's entry starts.
func (t *Tool) Line() int { return t.line }

// Kind is http, command or sql.
func (t *Tool) Kind() string { return t.kind }

// CredentialNames lists the environment variables the tool sends as
// credentials (in headers, query parameters or a URL's user
// information), sorted; their values are secrets whatever their names.
func (t *Tool) CredentialNames() []string { return credentialNames(t.refs) }

// Declared returns the declaration the tool was built from.
func (t *Tool) Declared() Spec { return t.decl }

// Call renders the request, command or statement from args, has a
// command approved as the terminal's are, asks for approval when the tool
// is marked approval: always, runs it and reports a trace when the
// context asks for one. Everything it returns has the values of secret
// ${NAME} variables masked.
func (t *Tool) Call(ctx context.Context, raw json.RawMessage) (any, error) {
	args, err := decodeArgs(raw)
	if err != nil {
		return nil, err
	}
	ce, err := resolveEnv(t.env, t.refs)
	if err != nil {
		return nil, err
	}
	var (
		detail string
		run    func() (any, string, error)
	)
	switch {
	case t.http != nil:
		var req *httpRequest
		if req, err = t.http.render(args, ce); err == nil {
			err = t.clients.check(req)
		}
		if err == nil {
			detail = req.String()
			run = func() (any, string, error) {
				data, status, err := t.http.do(ctx, t.clients, req)
				return data, httpStatus(status), err
			}
		}
	case t.cmd != nil:
		var r *cmdRun
		if r, err = t.cmd.render(ctx, args, ce); err == nil {
			err = t.approveCommand(ctx, r.commandLine(ce.mask))
		}
		if err == nil {
			detail = r.String()
			run = func() (any, string, error) {
				data, code, err := t.cmd.run(ctx, r)
				if code < 0 {
					return data, "", err
				}
				return data, fmt.Sprintf("exit %d", code), err
			}
		}
	case t.sql != nil:
		var r *sqlRun
		if r, err = t.sql.render(args, ce); err == nil {
			detail = r.String()
			run = func() (any, string, error) { return t.sql.run(ctx, r) }
		}
	default:
		return nil, tool.Errorf(tool.CodeInternal, "%s declares nothing to run", t.spec.Name)
	}
	if err != nil {
		return nil, ce.mask.Error(err)
	}
	detail = ce.mask.String(detail)
	if t.approval {
		if err := t.approve(ctx, detail); err != nil {
			t.report(ctx, Trace{Request: detail, Err: err.Error()})
			return nil, err
		}
	}
	start := time.Now()
	data, status, err := run()
	tr := Trace{Request: detail, Status: status, Duration: time.Since(start)}
	if isContextErr(err) {
		tr.Err = err.Error()
		t.report(ctx, tr)
		return nil, err
	}
	err = ce.mask.Error(err)
	if err != nil {
		tr.Err = err.Error()
	}
	t.report(ctx, tr)
	if err != nil {
		return nil, err
	}
	return ce.mask.Value(data), nil
}

// report sends a trace to the context's trace function, if any.
func (t *Tool) report(ctx context.Context, tr Trace) {
	if fn := traceFrom(ctx); fn != nil {
		tr.Tool, tr.Kind = t.spec.Name, t.kind
		fn(tr)
	}
}

// decodeArgs decodes the arguments object keeping numbers exact, so
// templates print 12345678901 rather than 1.2345678901e+10.
func decodeArgs(raw json.RawMessage) (map[string]any, error) {
	args := map[string]any{}
	if len(bytes.TrimSpace(raw)) == 0 {
		return args, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&args); err != nil {
		return nil, tool.Errorf(tool.CodeInvalidArguments, "arguments are not a JSON object: %v", err)
	}
	if args == nil {
		args = map[string]any{}
	}
	return args, nil
}

func httpStatus(code int) string {
	if code == 0 {
		return ""
	}
	return fmt.Sprintf("%d %s", code, http.StatusText(code))
}

func isContextErr(err error) bool {
	return errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled)
}
