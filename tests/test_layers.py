"""The tree is the architecture: a lower layer never imports a higher one, nothing imports a
command line, and there is no import circle anywhere — deferred imports inside functions
count (one that only hides a circle is still a circle), and so do `if TYPE_CHECKING:` blocks
(a circle the type checker needs is still one); those blocks are left out of the layer rules
only, where an annotation may name a class from above.
Records are declared one way, `cuectx.value.Value` (docs/DEVELOPING.md says why): no
dataclasses, named tuples or attrs classes anywhere in the tree.

The graph is built from the source (ast), so a new upward import or circle fails here
before anyone has to notice it. docs/DEVELOPING.md explains each layer.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("ctx", "cue", "cuectx")

# Which packages each layer may import from (prefix match on module names). Layers, bottom
# up: ctx.core + ctx.query (the pure domain) < ctx.semantic < ctx.doctor, ctx.claude <
# ctx.mcp, ctx.web < ctx.cli < ctx.__main__. cuectx (shared by both programs) is below all.
DOMAIN = ("ctx.core", "ctx.query", "cuectx")
ALLOWED = {
    "ctx.core": DOMAIN,
    "ctx.query": DOMAIN,
    "ctx.semantic": (*DOMAIN, "ctx.semantic"),
    "ctx.doctor": (*DOMAIN, "ctx.semantic", "ctx.doctor"),
    "ctx.claude": (*DOMAIN, "ctx.semantic", "ctx.doctor", "ctx.claude"),
    "ctx.mcp": (*DOMAIN, "ctx.semantic", "ctx.doctor", "ctx.claude", "ctx.mcp"),
    "ctx.web": (*DOMAIN, "ctx.semantic", "ctx.doctor", "ctx.claude", "ctx.web"),
    "ctx.cli": (*DOMAIN, "ctx.semantic", "ctx.doctor", "ctx.claude", "ctx.mcp", "ctx.web", "ctx.cli"),
    "ctx.__main__": ("ctx.claude.hooks.client", "ctx.claude.hooks.run", "ctx.mcp.wire",
                     "ctx.mcp.server", "ctx.cli.app"),
    "cuectx": ("cuectx",),
    # cue, bottom up: cue.core < cue.pii, cue.inputs < cue.select, cue.llm < cue.digest;
    # cue.inputs < cue.record; all of them < cue.cli < cue.__main__. The seed's names
    # (cue.frame_select, cue.image_preprocess) only re-export their package.
    **{layer: ("cue.core", "cuectx", *below, layer) for layer, below in (
        ("cue.core", ()),
        ("cue.pii", ()),
        ("cue.inputs", ()),
        ("cue.select", ("cue.inputs",)),
        ("cue.llm", ("cue.pii",)),
        ("cue.digest", ("cue.pii", "cue.inputs", "cue.select", "cue.llm")),
        ("cue.record", ("cue.inputs",)),
        ("cue.frame_select", ("cue.select",)),
        ("cue.image_preprocess", ("cue.digest.image_preprocess",)),
        ("cue.cli", ("cue.pii", "cue.inputs", "cue.select", "cue.llm", "cue.digest",
                     "cue.record")),
    )},
    # `cue digest` starts the scrubber's child before Typer loads (cue.pii.prewarm).
    "cue.__main__": ("cue.cli.app", "cue.pii"),
}
# Layers that never load the terminal UI stack (hooks, MCP and the web viewer must not pay
# for it, and the domain must not print).
NO_UI = ("ctx.core", "ctx.query", "ctx.semantic", "ctx.doctor", "ctx.claude", "ctx.mcp",
         "ctx.web", "cuectx", "cue.core", "cue.pii", "cue.inputs", "cue.select", "cue.llm",
         "cue.digest", "cue.record", "cue.frame_select", "cue.image_preprocess")
UI_EDGE = ("cuectx.cli", "cuectx.output")  # the one error/output edge both CLIs share
UI_LIBS = ("typer", "rich", "click")
# Circles being removed; this list only shrinks (the cue regroup emptied it).
KNOWN_CIRCLES: list[list[str]] = []


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _runtime_nodes(tree: ast.AST, type_checking: bool = False):
    """Every node of the module; what sits under `if TYPE_CHECKING:` only with `type_checking`."""
    stack = [tree]
    while stack:
        node = stack.pop()
        if not type_checking and isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            stack.extend(node.orelse)
            continue
        yield node
        stack.extend(ast.iter_child_nodes(node))


def build_graph(type_checking: bool = False) -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """(our module → our modules it imports, our module → third-party top-level names);
    imports under `if TYPE_CHECKING:` count with `type_checking`."""
    files = {_module_name(p): p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py")}
    ours: dict[str, set[str]] = {m: set() for m in files}
    external: dict[str, set[str]] = {m: set() for m in files}
    for name, path in files.items():
        is_pkg = path.name == "__init__.py"
        for node in _runtime_nodes(ast.parse(path.read_text(encoding="utf-8")), type_checking):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = name.split(".")[: len(name.split(".")) - node.level + (1 if is_pkg else 0)]
                    module = ".".join(base + ([node.module] if node.module else []))
                else:
                    module = node.module or ""
                for alias in node.names:
                    sub = f"{module}.{alias.name}"
                    targets.append(sub if sub in files else module)
            for target in targets:
                if target.split(".")[0] in PACKAGES:
                    # `import ctx.core.store` names the module; unknown names resolve to the
                    # nearest module that exists (a package's __init__).
                    while target and target not in files:
                        target = target.rpartition(".")[0]
                    if target and target != name:
                        ours[name].add(target)
                else:
                    external[name].add(target.split(".")[0])
    return ours, external


GRAPH, EXTERNAL = build_graph()
WITH_TYPE_CHECKING, _ = build_graph(type_checking=True)  # what the circle test reads


def _layer(module: str, table) -> str | None:
    best = None
    for prefix in table:
        if (module == prefix or module.startswith(prefix + ".")) and (best is None or len(prefix) > len(best)):
            best = prefix
    return best


def _strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's algorithm, iterative; returns components of more than one module."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            advanced = False
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                    advanced = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_the_graph_sees_every_package():
    assert {m.split(".")[0] for m in GRAPH} == set(PACKAGES)
    # it resolves deferred imports too: ctx.__main__ loads the in-process hook inside main()
    assert "ctx.claude.hooks.run" in GRAPH["ctx.__main__"]
    # and, for circles, what only the type checker imports: actions names Command that way
    assert "ctx.claude.tags" in WITH_TYPE_CHECKING["ctx.claude.actions"]
    assert "ctx.claude.tags" not in GRAPH["ctx.claude.actions"]


def test_no_import_circle_anywhere():
    circles = [c for c in _strongly_connected(WITH_TYPE_CHECKING) if c not in KNOWN_CIRCLES]
    assert not circles, "import circles:\n" + "\n".join(" ↔ ".join(c) for c in circles)


def test_the_circle_finder_can_fail():
    assert _strongly_connected({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == [["a", "b", "c"]]


@pytest.mark.parametrize("module", sorted(GRAPH))
def test_no_upward_import(module):
    if module in ("ctx", "cue"):  # the programs' package roots hold nothing
        assert not GRAPH[module]
        return
    layer = _layer(module, ALLOWED)
    assert layer is not None, f"{module} belongs to no layer: add its package to ALLOWED"
    allowed = ALLOWED[layer]
    bad = sorted(t for t in GRAPH[module] if _layer(t, {p: () for p in allowed}) is None)
    assert not bad, f"{module} ({layer}) may not import {bad}"


def test_nothing_imports_a_command_line():
    for module, targets in GRAPH.items():
        for target in targets:
            if target == "ctx.cli" or target.startswith("ctx.cli."):
                assert module.startswith("ctx.cli") or module == "ctx.__main__", (module, target)
            if target == "cue.cli" or target.startswith("cue.cli."):
                assert module.startswith("cue.cli") or module == "cue.__main__", (module, target)


@pytest.mark.parametrize("module", sorted(m for m in GRAPH if _layer(m, {p: () for p in NO_UI})
                                          and m not in UI_EDGE))
def test_lower_layers_do_not_load_the_terminal_ui(module):
    assert not EXTERNAL[module] & set(UI_LIBS), f"{module} imports {EXTERNAL[module] & set(UI_LIBS)}"


# One record style (issue 35 item 5): every record class is a cuectx.value.Value subclass.
# The other ways Python offers, each spelled as the source would spell it.
OTHER_RECORD_STYLES = {"dataclasses": "dataclasses", "collections.namedtuple": "namedtuple",
                       "typing.NamedTuple": "NamedTuple", "attrs": "attrs", "attr": "attrs"}
RECORD_DIRS = (*PACKAGES, "bench", "tests")


def _other_record_styles(source: str) -> list[str]:
    """What in `source` declares a record another way (by the name it imports)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level:
            names = [node.module or ""] + [f"{node.module}.{a.name}" for a in node.names]
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            names = [f"{node.value.id}.{node.attr}"]  # `collections.namedtuple(...)`
        else:
            continue
        found += [f"line {node.lineno}: {OTHER_RECORD_STYLES[n]}" for n in names
                  if n in OTHER_RECORD_STYLES]
    return found


def test_records_are_declared_one_way():
    offenders = []
    for top in RECORD_DIRS:
        for path in sorted((ROOT / top).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            if rel.startswith("bench/confirm/"):  # the held-out half: never read here
                continue
            offenders += [f"{rel} {hit}" for hit in _other_record_styles(path.read_text(encoding="utf-8"))]
    assert not offenders, ("a record declared another way; subclass cuectx.value.Value "
                           "(docs/DEVELOPING.md, 'Records'):\n" + "\n".join(offenders))


def test_the_record_style_check_can_fail():
    caught = ["from dataclasses import dataclass", "import dataclasses",
              "from dataclasses import field, replace", "from collections import namedtuple",
              "import collections\nP = collections.namedtuple('P', 'x y')",
              "from typing import NamedTuple", "import typing\nclass P(typing.NamedTuple): x: int",
              "import attrs", "from attr import define"]
    missed = ["from collections import Counter", "from typing import Any",
              "from cuectx.value import Value", "x.dataclasses = 1"]
    assert all(_other_record_styles(s) for s in caught)
    assert not any(_other_record_styles(s) for s in missed)
