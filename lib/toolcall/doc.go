// Package toolcall is the tool-call action format's language: an
// environment's actions declared as tools (a name, a description, a JSON
// schema of the arguments and the action text a call stands for), and the
// reading of a model's <tool_call>{"name": ..., "arguments": ...}</tool_call>
// block into an action.
//
// A Tool's Parameters is a JSON schema of type object whose properties are
// strings, integers, numbers or booleans (with an optional enum); Action
// is the environment's action text with {NAME} where argument NAME goes
// ("go to {place}"); a tool without one stands for the call itself as
// compact JSON ({"name":...,"arguments":{...}}), for an exec: environment
// that reads calls. A Set is the tools of one episode; Set.Parse reads an
// answer and Set.Answer writes the call that stands for an action (what the
// text policies write). A call that does not parse, names no tool of the
// set, or whose arguments do not fit the tool's schema (a missing required
// argument, an undeclared one, a wrong type, a value outside the enum) is
// no action: the answer is invalid.
package toolcall
