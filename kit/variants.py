"""Each student's numbers and answer key, for office hours, regrade requests and scripts.

::

    python -m kit.variants ps5_kernel_pca --student ada_lee          # numbers and key
    python -m kit.variants ps5_kernel_pca --student ada_lee --json   # the same, as JSON
    python -m kit.variants ps5_kernel_pca --roster students.csv      # CSV of a whole class
    python -m kit.variants --write-cells                             # instructors: refresh
                                                                     # the notebooks' cells
    python -m kit.variants ps5_kernel_pca --retire khat:17           # next release: retire
                                                                     # a harder candidate

The roster is a CSV with a ``student_id`` column (nbgrader's ``nbgrader db student
import`` format; a first column named ``id`` works too). The output CSV (``--out``, default
``reports/variants_<ps>.csv``) has one row per student: their numbers, then their key.
Student ids must be the nbgrader ids (the ``submitted/<student>/`` folders); on a JupyterHub
course they are the hub user names, on an LMS course the ids students type into the
notebook's ``STUDENT_ID`` cell and the LMS export names its files with.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from pathlib import Path

import nbformat
import sympy as sp

from kit.course import ASSIGNMENTS, REPO_ROOT
from kit.roster import read_roster
from kpca_ref import variants
from kpca_ref.variants.cell import IDENTITY_CELL, NUMBERS_ID, numbers_cell


def _text(value) -> str:
    if isinstance(value, sp.MatrixBase):
        return str(value.tolist() if value.cols > 1 else list(value))
    return str(value)


def key_of(ps: str, student: str) -> dict:
    """``{"numbers": {N.name: text}, "answers": {answer: text}}`` of one student."""
    v = variants.variant(ps, student)
    return {"problem_set": ps, "student_id": student,
            "numbers": {f"N.{k}": _text(x) for k, x in vars(v.numbers).items()},
            "answers": {k: _text(x) for k, x in v.answers.items()},
            "sign_free": sorted(v.up_to_sign)}


def write_roster(ps: str, students: list[str], out: Path) -> Path:
    out.parent.mkdir(parents=True, exist_ok=True)
    keys = [key_of(ps, s) for s in students]
    fields = ["student_id", *keys[0]["numbers"], *keys[0]["answers"]]
    with out.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=fields)
        writer.writeheader()
        for k in keys:
            writer.writerow({"student_id": k["student_id"], **k["numbers"], **k["answers"]})
    return out


def write_cells(root: Path = REPO_ROOT, assignments=ASSIGNMENTS) -> list[str]:
    """Refresh the identity and numbers cells of the source notebooks; returns what changed.

    The identity cell (an unlocked cell holding ``STUDENT_ID = ""``) must be there already:
    its text is the student's to edit, so it is never rewritten.
    """
    changed = []
    for ps in assignments:
        try:
            variants.module(ps)
        except (ValueError, ModuleNotFoundError):  # a problem set without exact items
            continue
        path = root / "source" / ps / f"{ps}.ipynb"
        nb = nbformat.read(path, as_version=4)
        ids = {c.metadata.get("nbgrader", {}).get("grade_id"): c for c in nb.cells}
        if NUMBERS_ID not in ids:
            raise SystemExit(f"{path}: no cell with grade_id {NUMBERS_ID!r}; add a locked "
                             "read-only code cell with that id after the imports")
        if not any(c.cell_type == "code" and "STUDENT_ID = " in c.source for c in nb.cells):
            raise SystemExit(f"{path}: no identity cell (an unlocked code cell holding "
                             f"{IDENTITY_CELL.splitlines()[-1]}) before the numbers cell")
        cell = ids[NUMBERS_ID]
        text = numbers_cell(ps)
        hidden = cell.metadata.get("jupyter", {}).get("source_hidden") is True
        if cell.source != text or not hidden:  # the cell is shown collapsed: numbers, not code
            cell.source = text
            cell.metadata.setdefault("jupyter", {})["source_hidden"] = True
            nbformat.write(nb, path)
            changed.append(ps)
    return changed


def retire(ps: str, family: str, index: int, path: Path | None = None) -> dict:
    """Retire candidate ``index`` of ``family`` in ``ps`` for the next release: write it into
    ``kpca_ref/variants/retired.json`` (or ``path``) and return the retired table.

    Its students get another of the family's candidates (:func:`kpca_ref.variants.candidate_of`);
    every other student keeps theirs. ``--write-cells`` then puts the list into the numbers
    cell, and the next release carries it."""
    options = variants.families(ps).get(family) if ps in variants.PROBLEM_SETS else None
    if options is None:
        raise ValueError(f"no family {family!r} in problem set {ps!r}; its families: "
                         f"{', '.join(variants.families(ps)) if ps in variants.PROBLEM_SETS else '-'}")
    if not 0 <= index < len(options):
        raise ValueError(f"{ps} / {family} has candidates 0 to {len(options) - 1}, got {index}")
    path = Path(path or variants.RETIRED_FILE)
    table = {p: {f: list(i) for f, i in fams.items()} for p, fams in variants._read_retired(path).items()}
    gone = sorted(set(table.setdefault(ps, {}).get(family, [])) | {index})
    if len(gone) >= len(options):
        raise ValueError(f"{ps} / {family}: retiring candidate {index} would leave none")
    table[ps][family] = gone
    path.write_text(json.dumps(table, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    if path == variants.RETIRED_FILE:  # this process draws with the new list from now on
        variants.RETIRED.clear()
        variants.RETIRED.update(variants._read_retired(path))
        variants.variant.cache_clear()
    return table


def counts_table() -> str:
    """Markdown table: each family of numbers, its variant count and the items built on it."""
    rows = ["| problem set | family | numbers | variants | exact items built on it |",
            "|---|---|---|---|---|"]
    for ps in variants.PROBLEM_SETS:
        try:
            mod = variants.module(ps)
        except ModuleNotFoundError:
            continue
        for family, options in variants.families(ps).items():
            names = ", ".join(f"`N.{n}`" for n in options[0])
            items = ", ".join(f"`{i}`" for i, fams in mod.ITEMS.items() if family in fams)
            rows.append(f"| `{ps}` | {family} | {names} | {len(options)} | {items} |")
    return "\n".join(rows)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m kit.variants", description=__doc__.split(
        "\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("ps", nargs="?", help="problem set, e.g. ps1_circle_lift")
    parser.add_argument("--student", help="one student's nbgrader id")
    parser.add_argument("--json", action="store_true", help="print JSON (with --student)")
    parser.add_argument("--roster", type=Path, help="CSV with a student_id column")
    parser.add_argument("--out", type=Path, help="CSV written with --roster")
    parser.add_argument("--write-cells", action="store_true",
                        help="refresh the numbers cell of every source notebook")
    parser.add_argument("--counts", action="store_true",
                        help="print the README's table of variant counts")
    parser.add_argument("--retire", metavar="FAMILY:INDEX",
                        help="retire a family's candidate of PS for the next release")
    args = parser.parse_args(argv)
    if args.retire:
        family, _, index = args.retire.rpartition(":")
        if not family or not index.isdigit():
            parser.error(f"--retire takes FAMILY:INDEX (e.g. circle:17), got {args.retire!r}")
        try:
            table = retire(args.ps, family, int(index))
        except ValueError as exc:
            parser.error(str(exc))
        print(f"retired in {args.ps} / {family}: {table[args.ps][family]}; now "
              "python -m kit.variants --write-cells, then release the problem set")
        return 0
    if args.counts:
        print(counts_table())
        return 0
    if args.write_cells:
        changed = write_cells()
        print("numbers cells rewritten: " + (", ".join(changed) or "none (all current)"))
        return 0
    if args.ps not in variants.PROBLEM_SETS:
        parser.error(f"name a problem set: one of {', '.join(variants.PROBLEM_SETS)}")
    if bool(args.student) == bool(args.roster):
        parser.error("give either --student ID or --roster students.csv")
    if args.roster:
        out = args.out or REPO_ROOT / "reports" / f"variants_{args.ps}.csv"
        students = read_roster(args.roster)
        print(f"wrote {write_roster(args.ps, students, out)} ({len(students)} students)")
        return 0
    key = key_of(args.ps, args.student)
    if args.json:
        json.dump(key, sys.stdout, indent=2)
        print()
        return 0
    print(f"{args.ps}, variant for {args.student!r}")
    print("numbers:")
    for name, value in key["numbers"].items():
        print(f"  {name} = {value}")
    print("answer key" + (" (sign free: " + ", ".join(key["sign_free"]) + ")"
                          if key["sign_free"] else "") + ":")
    for name, value in key["answers"].items():
        print(f"  {name} = {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
