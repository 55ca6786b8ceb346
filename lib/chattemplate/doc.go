// Package chattemplate renders a checkpoint's chat template: the Jinja
// subset that Hugging Face chat templates are written in, as far as the
// Qwen2.5 and Qwen3 templates need it, tools included.
//
// What it takes: text, {{ expression }}, {% statement %} and {# comment #}
// tags with the - white-space markers, and the environment Hugging Face
// renders with (trim_blocks and lstrip_blocks on); the statements if /
// elif / else, for (one name or a pair, loop.index, index0, first, last,
// length, revindex) with else, and set (a name, or an attribute of a
// namespace); literals (strings with Python escapes, integers, floats,
// true / false / none in either case, lists, dicts); names, attributes,
// subscripts and slices; + - * / // % ~, comparisons, in / not in, and /
// or / not, the conditional x if c else y; the tests defined, undefined,
// none, string, number, integer, boolean, true, false, mapping, sequence,
// iterable; the filters tojson, length (count), trim, lower, upper,
// string, join, first, last, default, items, list; the string methods
// startswith, endswith, split, strip, lstrip, rstrip, lower, upper,
// replace, title; the map methods get, items, keys, values; the globals
// namespace and raise_exception. Anything else is a parse or render
// error that names it, never a silent blank.
//
// Values are Go's nil (None), bool, int64, float64, string, []any and
// *Map, an object that keeps its keys in order, so that tojson writes a
// tool's JSON schema as given, with Python's json.dumps separators (", "
// and ": ") and non-ASCII text as is, as transformers' tojson does.
// Decode reads JSON into these values.
package chattemplate
