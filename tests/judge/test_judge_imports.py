"""What a judge child imports on first use, the grader imports once: the next child inherits it.

A judge child is forked per notebook (``kit.judge.limits.run_bounded``), so a module it
imports on first use (sympy's ``simplify`` imports ``sympy.physics.units``, ps0's cap fraction
``scipy.special``) was imported again by every notebook's child: 0.1 to 0.3 CPU s each time.
The grader now imports such modules once a child has, and only those of numpy, scipy, sympy
and kpca_ref; each check runs in a fresh interpreter, so that nothing is imported before.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

from kit.course import REPO_ROOT

HEAD = """
import sys
from nbformat.v4 import new_code_cell
from kit.judge import limits

def run(*modules):
    def judge(cell):
        import importlib
        for name in modules:
            importlib.import_module(name)
        cell.outputs = []
    limits.run_bounded([(new_code_cell("pass"), judge)])
"""


def fresh(body: str) -> str:
    """Run ``body`` after :data:`HEAD` in a new interpreter; its standard output."""
    done = subprocess.run([sys.executable, "-c", HEAD + textwrap.dedent(body)], cwd=REPO_ROOT,
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def test_a_module_a_child_imported_is_imported_by_the_grader():
    out = fresh("""
        assert "sympy.physics.units" not in sys.modules
        run("sympy.physics.units")
        print("sympy.physics.units" in sys.modules, "sympy.physics" in sys.modules)
    """)
    assert out.split() == ["True", "True"]


def test_the_next_child_inherits_it_and_imports_nothing_again():
    out = fresh("""
        import time
        run("scipy.special")
        before = set(sys.modules)
        seen = []
        def judge(cell):
            seen.append(sorted(set(sys.modules) - before))
            import scipy.special  # already there: nothing to import
            seen.append(sorted(set(sys.modules) - before))
            print(seen, flush=True)
            cell.outputs = []
        limits.run_bounded([(new_code_cell("pass"), judge)])
    """)
    assert out.strip() == "[[], []]"


def test_modules_of_other_packages_are_not_imported_by_the_grader():
    out = fresh("""
        run("json.tool", "xml.dom.minidom", "this")
        print(sorted(m for m in ("json.tool", "xml.dom.minidom", "this") if m in sys.modules))
    """)
    assert out.strip().splitlines()[-1] == "[]"


def test_what_the_grader_learns_is_bounded_and_only_module_names():
    out = fresh("""
        assert "numpy.polynomial" not in sys.modules and "sympy.physics" not in sys.modules
        limits._learn_imports(["sympy.physics.units; import os", "numpy..x", 7, "os.path",
                               "numpy.polynomial"])
        print("numpy.polynomial" in sys.modules, sorted(limits._LEARNED),
              "sympy.physics" in sys.modules)
        limits.MAX_LEARNED = len(limits._LEARNED)
        limits._learn_imports(["scipy.special"])
        print("scipy.special" in sys.modules)
    """)
    first, second = out.split("\n")[:2]
    assert first == "True ['numpy.polynomial'] False" and second == "False", out
