"""Data flows one way: no import circle in kit/, kpca_ref/, kpca_probe/, and no import upward.

The import graph is read from the source with :mod:`ast` (every ``import`` and
``from ... import``, those inside functions too: a lazy import is still a dependency).
Each module sits on a layer of :data:`LAYERS`, from the ground up; a module may import
modules of its own package (entry of the table) and of lower layers, never of a higher
layer or of another package on its own layer.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("kit", "kpca_ref", "kpca_probe")

#: from the ground up; a name is a module or a package (then everything below it, unless
#: the name ends with ``$``)
LAYERS: list[tuple[str, ...]] = [
    # what the grader and the kernels share: the kernel functions and the wire format
    ("kpca_probe.functions", "kpca_probe.wire_limits", "kpca_probe.wire_raw"),
    ("kpca_probe.wire",),
    # the reference: one module per lecture idea, the tolerances, the mistakes' messages
    ("kpca_ref",),
    ("kpca_ref.variants",),  # each student's exact numbers and keys
    ("kpca_ref.grading",),  # hidden cases, comparison, mistakes
    ("kpca_probe",),  # runs the hidden tests in the kernel (falls back to kpca_ref.grading)
    # CPU seconds of process trees (make bench-scale counts each process kind's): needs nothing
    ("kit.engines.cputime",),
    # whether multiprocessing's fork server is private to this user: needs nothing
    ("kit.forkserver",),
    # the Assignments panel's due dates: a route on the student's own Jupyter server that
    # asks the check service over HTTP (it imports nothing of the kit)
    ("kit.duepanel",),
    # where a course lives, how nbgrader is driven for it; student text made inert on a terminal
    ("kit.course", "kit.inert"),
    # student text made plain text in the pages the kit writes itself (the overview)
    ("kit.html.escape",),
    # the grader's secret that salts each student's hidden inputs (kept in the course
    # directory); the roster's salted hashes that a release may carry
    ("kit.secret", "kit.roster"),
    # stages that need only the course (and the reference): release is step 1
    # (kit.feedback_labels, the feedback page's cell labels, stands beside the handback: it
    # carries the feedback template's folder, kit/templates/, with it)
    # hand-ins in, and when the course received each (the judge's check costs read it)
    ("kit.intake",),
    # the term's calendar: due dates, extensions, late policy; it reads the intake's received
    # times, and the check service, the feedback page, the recording of grades, the CSV and
    # the report read it
    ("kit.term",),
    # the hub service that checks exact answers before each student's due date (it needs the
    # course, the calendar and the reference; the judge reads its attempts when checks cost
    # points)
    ("kit.checks",),
    ("kit.release", "kit.judge", "kit.html"),
    ("kit.handback", "kit.feedback_labels"),
    ("kit.sandbox",),  # runs a notebook; asks the judge what the test cells call
    ("kit.engines",),  # grading jobs: intake checks, sandboxed run, feedback page
    ("kit.gradebook",),  # export, hand grades, the move to PostgreSQL
    # copying evidence: answers that are another student's key, identical code cells
    ("kit.copying",),
    # item statistics and fairness across variants, from the per-part grades (the report's)
    ("kit.itemstats",),
    ("kit.report",),  # the class report, from outcomes and the gradebook
    # worked solutions on each student's numbers: the calendar says when, the sandbox runs
    # them, the feedback's exporter renders them, nbgrader's exchange hands them back
    ("kit.solutions",),
    # the commands a TA types, and the pointers of renamed ones
    ("kit.autograde", "kit.variants", "kit.collect", "kit.gradebook_move",
     "kit.kernelenv", "kit.kernelspec", "kit.hub", "kit.hub_config"),
    ("kit.demo_term",),  # the demo class's term: calendar, hand-in times, solutions, overview
    ("kit.demo",),  # the main job: release, lay the demo class, autograde, report
    ("kit$",),  # kit/__init__.py, the map of the stages (a name ending in $: that module only)
]


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            found[_module_name(path)] = path
    return found


def _target(name: str, modules) -> str | None:
    """The module of ours that ``name`` (a module or a name in one) is, or None."""
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def import_graph() -> dict[str, set[str]]:
    """``{module: modules of ours it imports}``."""
    modules = _modules()
    graph: dict[str, set[str]] = {m: set() for m in modules}
    for module, path in modules.items():
        is_package = path.name == "__init__.py"
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = module.split(".")
                    anchor = anchor[: len(anchor) - node.level + (1 if is_package else 0)]
                    base = ".".join([*anchor, *([base] if base else [])])
                names = [f"{base}.{alias.name}" for alias in node.names]
            for name in names:
                target = _target(name, modules)
                if target and target != module:
                    graph[module].add(target)
    return graph


def layer_of(module: str) -> tuple[int, str]:
    """The layer of ``module`` and the table entry that placed it (the longest that fits)."""
    best = None
    for level, entries in enumerate(LAYERS):
        for entry in entries:
            exact = entry.endswith("$")
            if (module == entry.rstrip("$") or not exact and module.startswith(entry + ".")) and (
                    best is None or len(entry) > len(best[1])):
                best = (level, entry)
    if best is None:
        raise LookupError(module)
    return best


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index, low, stack, on_stack, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def wrong_way(graph: dict[str, set[str]]) -> list[str]:
    """Every import upward, or sideways between two packages of one layer."""
    bad = []
    for module, targets in sorted(graph.items()):
        level, entry = layer_of(module)
        for target in sorted(targets):
            t_level, t_entry = layer_of(target)
            if t_entry != entry and t_level >= level:
                way = "up" if t_level > level else "sideways"
                bad.append(f"{module} ({entry}) -> {target} ({t_entry}): {way}")
    return bad


def test_every_module_has_a_layer():
    missing = []
    for module in _modules():
        try:
            layer_of(module)
        except LookupError:
            missing.append(module)
    assert missing == [], f"put these on a layer of LAYERS: {missing}"


def test_graph_is_read():
    """The reader sees the imports it must see (else the tests below prove nothing)."""
    graph = import_graph()
    assert "kit.engines.job" in graph["kit.autograde"]  # from kit.engines.job import ...
    assert "kit.sandbox.wrapper" in graph["kit.engines.job"]  # from kit.sandbox import wrapper
    assert "kpca_ref.grading.case_parts" in graph["kpca_ref.grading.cases_kpca"]
    assert "kpca_ref.grading" in graph["kpca_probe"]  # a lazy import inside a function


def test_no_import_circle():
    assert cycles(import_graph()) == []


def test_no_import_runs_up_or_sideways():
    assert wrong_way(import_graph()) == []


@pytest.mark.parametrize("edges, expected", [
    ({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}, [["a", "b", "c"]]),
    ({"a": {"b"}, "b": set()}, []),
])
def test_cycles_are_found(edges, expected):
    assert cycles(edges) == expected


def test_upward_and_sideways_imports_are_found():
    graph = {"kit.course": {"kit.report.page"}, "kit.judge.cells": {"kit.html.sanitize"},
             "kit.report.page": {"kit.course", "kit.report.data"}, "kit.report.data": set(),
             "kit.html.sanitize": set()}
    assert wrong_way(graph) == [
        "kit.course (kit.course) -> kit.report.page (kit.report): up",
        "kit.judge.cells (kit.judge) -> kit.html.sanitize (kit.html): sideways",
    ]
