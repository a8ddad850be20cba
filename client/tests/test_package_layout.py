"""The `breakroom` package's layout: no module imports another that imports it back (through
any chain, and counting the imports inside functions), the concepts (its subpackages and
top-level modules) import only downwards in a declared order, and an import inside a function
says why it is lazy. Read from the source with `ast`: nothing of the package is imported."""

import ast
import pathlib

import pytest

PACKAGE_DIR = pathlib.Path(__file__).resolve().parent.parent / "breakroom"
LAZY_MARK = "lazy:"

# The client's concepts, lowest first: a module imports only from its own concept and from
# those before it. "" is the package itself (`breakroom/__init__`, the public API).
CONCEPTS = [
    "protocol",  # the wire: constants, transport, servers, reconnect, serialize
    "redaction",  # what never leaves the program: redaction rules, places not debugged
    "process",  # this process: its one client and line engine, record, labels, frames
    "repl",  # evaluation, completion, the variables panel
    "children",  # child processes followed
    "time_travel",  # checkpoints by fork
    "snapshots",  # snapshot breakpoints and logpoints
    "breakpoints",  # kinds and decisions, error breakpoints
    "lines",  # the line engine, stepping, interrupts
    "pause",  # the client's waiting loop, wrapped calls, set_trace, post-mortem
    "breakpoint_channel",  # the server's breakpoints reaching the program
    "",
    "attach",
    "__main__",
]


def module_name(path, root):
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def package_of(name, path):
    return name if path.name == "__init__.py" else name.rpartition(".")[0]


def imported_modules(tree, name, path, known):
    """The package's modules each import statement of `tree` names. `from X import y` is an
    import of `X.y` when that is a module, else of `X`. A submodule's parent packages are not
    counted: Python imports them first, before the module that asks, whoever asks."""
    found = set()
    here = package_of(name, path)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here.split(".")
                base = base[: len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            targets = [f"{target}.{alias.name}" if f"{target}.{alias.name}" in known else target for alias in node.names]
        else:
            continue
        found.update(t for t in targets if t in known)
    return found


def import_graph(root):
    """module -> the modules of the package it imports, from every import statement."""
    paths = {module_name(p, root): p for p in sorted(root.rglob("*.py"))}
    return {
        name: imported_modules(ast.parse(path.read_text(encoding="utf-8")), name, path, paths) - {name}
        for name, path in paths.items()
    }


def find_cycle(graph):
    """One import cycle as a list of modules (the first repeated at the end), or None."""
    state = {}  # module -> "open" while on the path, "done" once all it reaches is seen

    def visit(module, path):
        state[module] = "open"
        path.append(module)
        for target in sorted(graph.get(module, ())):
            if state.get(target) == "open":
                return path[path.index(target):] + [target]
            if target not in state:
                cycle = visit(target, path)
                if cycle:
                    return cycle
        path.pop()
        state[module] = "done"
        return None

    for module in sorted(graph):
        if module not in state:
            cycle = visit(module, [])
            if cycle:
                return cycle
    return None


def concept_of(module):
    """`breakroom.lines.engine` -> "lines"; `breakroom` -> ""."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def order_violations(graph, concepts):
    """`a -> b` for each import of a later concept (or one not in the order at all)."""
    rank = {concept: i for i, concept in enumerate(concepts)}
    wrong = []
    for module, targets in sorted(graph.items()):
        for target in sorted(targets):
            here, there = rank.get(concept_of(module)), rank.get(concept_of(target))
            if here is None or there is None or there > here:
                wrong.append(f"{module} -> {target}")
    return wrong


def unexplained_lazy_imports(root):
    """`file:line` of each import inside a function without a `# lazy: why` comment on its line,
    or on the line above the run of import lines it belongs to."""
    missing = []
    for path in sorted(root.rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        lines = source.splitlines()
        tree = ast.parse(source)
        for func in ast.walk(tree):
            if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for node in ast.walk(func):
                if not isinstance(node, (ast.Import, ast.ImportFrom)):
                    continue
                if LAZY_MARK in lines[node.lineno - 1]:
                    continue
                above = node.lineno - 2
                while above >= 0 and lines[above].strip().startswith(("import ", "from ")):
                    above -= 1
                if above >= 0 and lines[above].strip().startswith("#") and LAZY_MARK in lines[above]:
                    continue
                missing.append(f"{path.relative_to(root.parent)}:{node.lineno}")
    return sorted(set(missing))


def test_the_client_package_has_no_import_cycle():
    graph = import_graph(PACKAGE_DIR)
    assert "breakroom.pause.client" in graph and graph["breakroom"], "the graph was not read"
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_the_concepts_import_only_those_declared_before_them():
    graph = import_graph(PACKAGE_DIR)
    assert {concept_of(m) for m in graph} == set(CONCEPTS), "a concept missing from CONCEPTS, or gone"
    assert order_violations(graph, CONCEPTS) == []


def test_an_import_of_a_later_concept_is_reported():
    graph = {"breakroom.lines.engine": {"breakroom.pause.call", "breakroom.protocol.constants"}, "breakroom.pause.call": set()}
    assert order_violations(graph, CONCEPTS) == ["breakroom.lines.engine -> breakroom.pause.call"]
    assert order_violations({"breakroom.extra": {"breakroom.protocol.servers"}}, CONCEPTS) == [
        "breakroom.extra -> breakroom.protocol.servers"
    ]


def test_every_import_inside_a_function_says_why_it_is_lazy():
    assert unexplained_lazy_imports(PACKAGE_DIR) == []


def write_package(root, files):
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def test_a_cycle_through_an_import_inside_a_function_is_found(tmp_path):
    root = write_package(
        tmp_path / "pkg",
        {
            "__init__.py": "from .low import helper\n",
            "low.py": "def helper():\n    from .high import top  # lazy: dodges the cycle\n    return top\n",
            "high/__init__.py": "",
            "high/top.py": "from ..low import helper\n",
        },
    )
    # (`from .high import top` names the module high/top.py.)
    assert find_cycle(import_graph(root)) == ["pkg.low", "pkg.high.top", "pkg.low"]


def test_a_package_whose_modules_only_import_downwards_has_no_cycle(tmp_path):
    root = write_package(
        tmp_path / "pkg",
        {
            "__init__.py": "from . import high\n",
            "high.py": "import pkg.low\nfrom .low import helper\n",
            "low.py": "import os\n",
        },
    )
    assert import_graph(root) == {"pkg": {"pkg.high"}, "pkg.high": {"pkg.low"}, "pkg.low": set()}
    assert find_cycle(import_graph(root)) is None


@pytest.mark.parametrize(
    "body, flagged",
    [
        ("def f():\n    import json\n", True),
        ("def f():\n    # heavy\n    import json\n", True),
        ("def f():\n    import json  # lazy: only f needs it\n", False),
        ("def f():\n    # lazy: optional and heavy\n    import json\n    from json import decoder\n", False),
        ("import json\n", False),
    ],
)
def test_an_import_inside_a_function_is_flagged_unless_a_comment_says_it_is_lazy(tmp_path, body, flagged):
    root = write_package(tmp_path / "pkg", {"__init__.py": "", "mod.py": body})
    assert unexplained_lazy_imports(root) == (["pkg/mod.py:" + str(body.count("\n", 0, body.index("import json")) + 1)] if flagged else [])
