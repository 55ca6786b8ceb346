"""Writes lib/chattemplate/testdata/reference.json: the text Python's jinja2
renders for each case, in the environment Hugging Face renders chat
templates with (sandboxed, trim_blocks and lstrip_blocks on, tojson as
json.dumps with ensure_ascii off, raise_exception). lib/chattemplate's
tests render the same cases and compare. Run from the repository root:
python3 scripts/chattemplate-ref/gen.py (needs jinja2)."""
import json
import os
import sys

from jinja2.sandbox import ImmutableSandboxedEnvironment
import jinja2

HERE = os.path.join("lib", "chattemplate", "testdata")


def env():
    e = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True)

    def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
        return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)

    def raise_exception(msg):
        raise jinja2.exceptions.TemplateError(msg)

    e.filters["tojson"] = tojson
    e.globals["raise_exception"] = raise_exception
    return e


def main():
    cases = json.load(open(os.path.join(HERE, "cases.json")))
    out = []
    e = env()
    for c in cases:
        src = open(os.path.join(HERE, c["template"])).read()
        text = e.from_string(src).render(**c["vars"])
        out.append({"name": c["name"], "text": text})
    with open(os.path.join(HERE, "reference.json"), "w") as f:
        json.dump({"jinja2": jinja2.__version__, "cases": out}, f, ensure_ascii=False, indent=1)
        f.write("\n")


if __name__ == "__main__":
    sys.exit(main())
