package code

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/dop251/goja"

	"github.com/hermes-go/hermes/internal/tool"
)

// maxCallStack bounds JavaScript call depth, so runaway recursion ends the
// program at once with a clear message instead of growing memory until the
// time limit. goja makes this overflow uncatchable by the program.
const maxCallStack = 2000

// program is the state of one program's execution. It belongs to the
// goroutine running the interpreter; only vm.Interrupt is called from
// elsewhere.
type program struct {
	c         *Code
	caller    tool.Caller
	ctx       context.Context
	vm        *goja.Runtime
	stringify goja.Callable
	parse     goja.Callable
	out       output
	calls     int
}

// run executes src with a fresh interpreter and classifies the outcome.
func (c *Code) run(ctx context.Context, caller tool.Caller, src string) (any, error) {
	prg, err := compile(src)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, c.opts.Timeout)
	defer cancel()
	r := &program{c: c, caller: caller, ctx: ctx, vm: goja.New(), out: output{max: c.opts.MaxOutput}}
	r.vm.SetMaxCallStackSize(maxCallStack)
	if err := r.setup(); err != nil {
		return nil, tool.Errorf(tool.CodeInternal, "setting up the interpreter: %v", err)
	}
	// Interrupt stops JavaScript between instructions; a tool call in
	// progress ends on its own because it gets ctx.
	stop := context.AfterFunc(ctx, func() { r.vm.Interrupt(context.Cause(ctx)) })
	defer stop()

	v, err := r.vm.RunProgram(prg)
	if err == nil {
		err = settled(v)
	}
	res := r.result()
	if err == nil {
		return res, nil
	}
	var interrupted *goja.InterruptedError
	if errors.As(err, &interrupted) || ctx.Err() != nil {
		if errors.Is(ctx.Err(), context.Canceled) {
			return nil, &tool.Error{Code: tool.CodeInterrupted, Message: "the program was cancelled", Data: res}
		}
		return nil, &tool.Error{Code: tool.CodeTimeout, Message: fmt.Sprintf("the program did not finish within %s and was stopped (an endless loop, or too much work for one program); print progress to see how far it got, and split the work", c.opts.Timeout), Data: res}
	}
	return nil, &tool.Error{Code: tool.CodeInvalidArguments, Message: describe(err), Data: res}
}

// result is the program's Result so far.
func (r *program) result() Result {
	return Result{Output: r.out.String(), ToolCalls: r.calls, Truncated: r.out.dropped > 0}
}

// setup binds print, console and tools. Nothing else is added to the
// global object: goja itself provides no require, fetch, timers or I/O.
func (r *program) setup() error {
	jsonObj := r.vm.Get("JSON").ToObject(r.vm)
	var ok bool
	if r.stringify, ok = goja.AssertFunction(jsonObj.Get("stringify")); !ok {
		return errors.New("JSON.stringify is missing")
	}
	if r.parse, ok = goja.AssertFunction(jsonObj.Get("parse")); !ok {
		return errors.New("JSON.parse is missing")
	}
	if err := r.vm.Set("print", r.print); err != nil {
		return err
	}
	console := r.vm.NewObject()
	for _, m := range []string{"log", "info", "warn", "error", "debug"} {
		if err := console.Set(m, r.print); err != nil {
			return err
		}
	}
	if err := r.vm.Set("console", console); err != nil {
		return err
	}
	tools := r.vm.NewObject()
	for _, name := range allowed(r.caller) {
		if err := tools.Set(name, r.binding(name)); err != nil {
			return err
		}
	}
	return r.vm.Set("tools", tools)
}

// print writes its arguments, separated by spaces, as one line.
func (r *program) print(call goja.FunctionCall) goja.Value {
	for i, arg := range call.Arguments {
		if i > 0 {
			r.out.write(" ")
		}
		r.out.write(r.format(arg))
	}
	r.out.write("\n")
	return goja.Undefined()
}

// format renders one printed value: strings as they are, errors as
// "Name: message", functions by their source, and other objects as
// compact JSON, falling back to String() for what JSON cannot hold.
func (r *program) format(v goja.Value) string {
	if v == nil || goja.IsUndefined(v) {
		return "undefined"
	}
	obj, isObj := v.(*goja.Object)
	if !isObj {
		return v.String()
	}
	if _, fn := goja.AssertFunction(v); fn || obj.ClassName() == "Error" {
		return v.String()
	}
	s, err := r.stringify(goja.Undefined(), v)
	if err != nil || goja.IsUndefined(s) {
		return v.String()
	}
	return s.String()
}

// binding returns the function a program calls as tools.<name>. It runs
// the tool synchronously and returns the data of an ok result, so both
// tools.x({...}) and await tools.x({...}) work; a failed result is thrown
// as an Error with code and data properties, so a program can catch it.
func (r *program) binding(name string) func(goja.FunctionCall) goja.Value {
	return func(call goja.FunctionCall) goja.Value {
		args := r.arguments(name, call.Argument(0))
		if r.calls >= r.c.opts.MaxCalls {
			panic(r.jsError(fmt.Sprintf("tool call limit reached: a program may make at most %d tool calls", r.c.opts.MaxCalls), "limit_reached", nil))
		}
		r.calls++
		res := r.caller.CallTool(r.ctx, name, args)
		if res.Status != tool.StatusOK {
			code := res.ErrorCode
			if code == "" {
				code = tool.CodeInternal
			}
			panic(r.jsError(fmt.Sprintf("%s: %s: %s", name, code, res.Message), string(code), res.Data))
		}
		v, err := r.toJS(res.Data)
		if err != nil {
			panic(r.jsError(fmt.Sprintf("%s: internal: its result could not be converted: %v", name, err), string(tool.CodeInternal), nil))
		}
		return v
	}
}

// arguments turns a call's argument into the tool's JSON arguments. No
// argument means {}; anything but a plain object is a TypeError.
func (r *program) arguments(name string, v goja.Value) json.RawMessage {
	if v == nil || goja.IsUndefined(v) || goja.IsNull(v) {
		return json.RawMessage("{}")
	}
	obj, ok := v.(*goja.Object)
	_, fn := goja.AssertFunction(v)
	if !ok || fn || obj.ClassName() == "Array" {
		panic(r.vm.NewTypeError("tools.%s takes one object of named arguments, like tools.%s({path: \"a.txt\"})", name, name))
	}
	s, err := r.stringify(goja.Undefined(), v)
	if err != nil {
		panic(r.vm.NewTypeError("tools.%s: the arguments cannot be converted to JSON: %v", name, err))
	}
	return json.RawMessage(s.String())
}

// toJS converts a tool's data into plain JavaScript values through JSON,
// so the program sees exactly the fields the model would.
func (r *program) toJS(data any) (goja.Value, error) {
	if data == nil {
		return goja.Undefined(), nil
	}
	b, err := json.Marshal(data)
	if err != nil {
		return nil, err
	}
	return r.parse(goja.Undefined(), r.vm.ToValue(string(b)))
}

// jsError builds an Error with a code and, when present, the failed
// result's data.
func (r *program) jsError(msg, code string, data any) goja.Value {
	ctor, _ := goja.AssertConstructor(r.vm.Get("Error"))
	obj, err := ctor(nil, r.vm.ToValue(msg))
	if err != nil {
		return r.vm.ToValue(msg)
	}
	_ = obj.Set("code", code)
	if data != nil {
		if v, err := r.toJS(data); err == nil {
			_ = obj.Set("data", v)
		}
	}
	return obj
}
