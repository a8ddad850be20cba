#!/usr/bin/env python3
"""Prints how the session manager's concepts hold together (issue 44), from its source:

- the public methods of each type with an inherent `impl` in debugger/src (the services'
  size, and how much is left on `Debugger`),
- for every field of the one `State` behind the mutex, the concepts' traits that hand it out
  (`…State`, implemented by the owner in debugger/hosts.rs): no concept names `State` itself,
- the uses against the declared order tests/concept_order.rs still allows, and how many
  `impl Debugger` blocks sit in concept folders.

Run from anywhere: python3 scripts/concept-metrics.py [--top N]
"""

import argparse
import re
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "debugger" / "src"

IMPL = re.compile(r"^impl(?:<[^>]*>)?\s+(?:[a-z_]+::)*([A-Za-z_][A-Za-z0-9_]*)(?:<[^>]*>)?\s*\{")
PUB_FN = re.compile(r"^    pub (?:async )?fn ([a-z_0-9]+)")


def without_tests(text):
    # Unit tests at the end of a file are not the API.
    at = text.find("#[cfg(test)]\nmod ")
    return text if at < 0 else text[:at]


def rust_files():
    return sorted(p for p in SRC.rglob("*.rs"))


def public_methods():
    """type -> {method name -> file}"""
    methods = defaultdict(dict)
    for path in rust_files():
        current = None
        for line in without_tests(path.read_text()).splitlines():
            found = IMPL.match(line)
            if found:
                current = found.group(1)
                continue
            if line.startswith("}"):
                current = None
                continue
            fn = PUB_FN.match(line)
            if current and fn:
                methods[current][fn.group(1)] = str(path.relative_to(SRC))
    return methods


def state_body():
    text = (SRC / "debugger" / "state.rs").read_text()
    found = re.search(r"pub(?:\(crate\))? struct State \{", text)
    body = text[found.start() :]
    return body[: body.index("\n}\n")]


def state_fields():
    return re.findall(r"^    (?:pub(?:\([a-z]+\))? )?([a-z_]+):", state_body(), re.M)


def field_privacy():
    """field of State -> (its type, whether that type's own fields are hidden from the other
    concepts: private or `pub(super)`), for the fields whose type is a struct of debugger/src."""
    structs = {}
    for path in rust_files():
        for found in re.finditer(r"^pub(?:\([a-z]+\))? struct ([A-Za-z]+) \{\n(.*?)^\}", path.read_text(), re.M | re.S):
            fields = re.findall(r"^    (pub(?:\([a-z]+\))? )?[a-z_]+:", found.group(2), re.M)
            structs[found.group(1)] = all(v in ("", "pub(super) ") for v in fields)
    privacy = {}
    for field, ty in re.findall(r"^    (?:pub(?:\([a-z]+\))? )?([a-z_]+): ([^,\n]+),", state_body(), re.M):
        name = re.sub(r"<.*", "", ty).split("::")[-1]
        if name in structs:
            privacy[field] = (name, structs[name])
    return privacy


def handed_out(fields):
    """field of State -> the concepts' traits whose implementation on the owner's `State`
    (debugger/src/debugger/hosts.rs) hands it out: what each concept reaches under the lock."""
    hosts = (SRC / "debugger" / "hosts.rs").read_text()
    given = {f: set() for f in fields}
    for found in re.finditer(r"^impl ([A-Za-z]+) for State \{\n(.*?)^\}", hosts, re.M | re.S):
        for field in set(re.findall(r"self\.([a-z_]+)\b", found.group(2))):
            if field in given:
                given[field].add(found.group(1))
    return given


def order_violations():
    text = (ROOT / "debugger" / "tests" / "concept_order.rs").read_text()
    if "STILL_AGAINST_THE_ORDER" not in text:
        return []
    block = text[text.index("STILL_AGAINST_THE_ORDER") :]
    block = block[: block.index("];")]
    return re.findall(r'\("([a-z_]+)", "([a-z_]+)"\)', block)


def impl_debugger_outside_owner():
    count = 0
    for path in rust_files():
        if path.relative_to(SRC).parts[0] == "debugger":
            continue
        count += len(re.findall(r"^impl Debugger \{", without_tests(path.read_text()), re.M))
    return count


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--top", type=int, default=25, help="how many types to list")
    args = parser.parse_args()

    methods = public_methods()
    print("Public methods per type (inherent impls in debugger/src):")
    ranked = sorted(methods.items(), key=lambda kv: -len(kv[1]))
    for name, fns in ranked[: args.top]:
        files = sorted(set(fns.values()))
        print(f"  {len(fns):4d}  {name}  ({len(files)} files)")
    print(f"  total over {len(methods)} types: {sum(len(f) for f in methods.values())}")

    fields = state_fields()
    given = handed_out(fields)
    print("\nEach field of the one State, and the concepts' traits that hand it out (debugger/hosts.rs):")
    for field in fields:
        print(f"  {field:15s} {', '.join(sorted(given[field])) or '(the owner alone)'}")

    privacy = field_privacy()
    hidden = [f for f, (_, closed) in privacy.items() if closed]
    print(f"\nParts of State whose own fields only their concept sees: {len(hidden)} of {len(fields)}")
    for field, (name, closed) in privacy.items():
        print(f"  {'private' if closed else 'open   '}  {field}: {name}")

    violations = order_violations()
    to_owner = [v for v in violations if v[1] == "debugger"]
    print(f"\nUses against the declared order still listed: {len(violations)} ({len(to_owner)} of them `X -> debugger`)")
    print(f"`impl Debugger` blocks in concept folders: {impl_debugger_outside_owner()}")


if __name__ == "__main__":
    main()
