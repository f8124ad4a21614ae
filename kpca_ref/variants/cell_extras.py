"""Two parts of the numbers cell (:mod:`kpca_ref.variants.cell`): the roster and ``check``.

* :data:`ROSTER_PART` defines ``_ROSTER = None`` and ``_on_roster(student_id)``. A release
  made with a roster (``python -m kit.release --roster students.csv``, :mod:`kit.roster`)
  replaces that line with the roster's salted hashes; a typed ``STUDENT_ID`` whose hash is
  not among them stops the cell with "this id is not on the course roster: check its
  spelling". With ``_ROSTER = None`` (the committed release) nothing is checked.
* :data:`CHECK_PART` defines ``check(item, answer)`` (``item`` one of the problem set's
  exact items, ``_CHECK_ITEMS``, which the numbers cell lists before it): the answer, written as the judge's
  wire format (:mod:`kpca_probe.wire`, sympy part), is posted with the student's hub token
  to the course's check service (:mod:`kit.checks`), whose one-line verdict it prints. Off
  the hub it prints one line and returns; while nbgrader grades or validates the notebook
  (``NBGRADER_EXECUTION`` set) it prints nothing, so feedback pages stay clean; it never
  raises.
* :data:`CHECK_PART` also defines ``practice(k)``: fresh numbers for no credit, from the check
  service's practice draw ``k`` (:mod:`kit.checks.practice`: a numbers id only the service
  can compute, from which ``your_numbers`` draws them as it draws a student's own). After
  ``N = practice(k)``, ``check`` checks on draw ``k`` until the numbers cell runs again.
  While nbgrader grades or validates the notebook it returns the student's own numbers, so
  a hand-in is graded on them whatever it calls.

Both are plain text: the cell imports nothing of the kit (a student's kernel has none of it).
"""

from __future__ import annotations

__all__ = ["CHECK_PART", "ROSTER_LINE", "ROSTER_PART"]

#: the line a roster release replaces (:func:`kit.roster.with_roster`)
ROSTER_LINE = "_ROSTER = None"

ROSTER_PART = ROSTER_LINE + '''


def _on_roster(student_id):
    """`student_id`, when the release has no roster or the id is on it."""
    if not _ROSTER:
        return student_id
    digest = _hashlib.pbkdf2_hmac("sha256", student_id.encode(), bytes.fromhex(_ROSTER["salt"]),
                                  _ROSTER["rounds"]).hex()[:_ROSTER["length"]]
    if digest not in _ROSTER["ids"]:
        raise RuntimeError(
            f"STUDENT_ID = {student_id!r}: this id is not on the course roster: check its "
            "spelling (it is the id your course gave you, letter for letter), fix it in the "
            "cell above and run both cells again."
        )
    return student_id'''

CHECK_PART = '''def _wire(value, depth=0):
    """`value` as the judge's wire format (sympy values, numbers, lists)."""
    if depth > 40:
        return {"u": "too deep"}
    if isinstance(value, bool) or value is _sympy.true or value is _sympy.false:
        return {"b": bool(value)}
    if isinstance(value, int):
        return {"i": str(value)}
    if isinstance(value, float):
        return {"f": value if abs(value) < float("inf") else repr(value)}  # nan, inf: text
    if isinstance(value, (list, tuple)):
        return {type(value).__name__: [_wire(v, depth + 1) for v in list(value)[:1000]]}
    if isinstance(value, _sympy.MatrixBase):
        return {"M": [value.rows, value.cols], "d": [_wire(v, depth + 1) for v in value]}
    if isinstance(value, _sympy.Basic):
        if value.is_Integer:
            return {"Z": str(int(value))}
        if value.is_Rational:
            return {"Q": [str(int(value.p)), str(int(value.q))]}
        if value.is_Float:
            return {"F": float(value)}
        for name, const in (("pi", _sympy.pi), ("E", _sympy.E), ("I", _sympy.I),
                            ("oo", _sympy.oo), ("-oo", -_sympy.oo), ("zoo", _sympy.zoo),
                            ("nan", _sympy.nan)):
            if value is const:
                return {"c": name}
        if isinstance(value, (_sympy.Add, _sympy.Mul, _sympy.Pow)):
            return {"op": type(value).__name__, "a": [_wire(a, depth + 1) for a in value.args]}
        if type(value).__name__ in ("exp", "log", "sin", "cos", "tan", "Abs"):
            return {"f": type(value).__name__, "a": [_wire(a, depth + 1) for a in value.args]}
        if isinstance(value, _sympy.Symbol):
            return {"s": value.name[:40]}
    if hasattr(value, "tolist"):  # numpy arrays and scalars
        return _wire(value.tolist(), depth + 1)
    return {"u": type(value).__name__[:60]}


def _ask(path, payload, what):
    """The check service's JSON reply to `payload` posted to `path`, or None (said why)."""
    import json
    import urllib.error
    import urllib.request

    url, token = _os.environ.get("KPCA_CHECK_URL"), _os.environ.get("JUPYTERHUB_API_TOKEN")
    if not url or not token:
        print(f"{what}: instant checks and practice work on the course's JupyterHub only (not "
              "here); your answers are still graded when you hand in.")
        return None
    try:
        body = json.dumps(payload).encode()
    except (TypeError, ValueError, RecursionError):
        print(f"{what}: this answer cannot be sent (not an exact value).")
        return None
    request = urllib.request.Request(url.rstrip("/") + "/" + path, data=body, method="POST",
                                     headers={"Authorization": f"token {token}",
                                              "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=15) as response:
            return json.loads(response.read(65536))
    except urllib.error.HTTPError as exc:
        try:
            return json.loads(exc.read(65536))
        except ValueError:
            return {"message": f"the check service answered {exc.code}; try again later"}
    except (OSError, ValueError) as exc:
        print(f"{what}: the check service cannot be reached ({type(exc).__name__}); your "
              "answers are still graded when you hand in.")
        return None


def check(item, answer):
    """Check your exact answer `item` (e.g. "ps1_lift_point") now, on the course's JupyterHub.

    Prints right, or wrong with a hint where a known mistake explains it, and the checks you
    have left. What a check says is not a grade: grading happens when you hand in. After
    N = practice(k) it checks on practice draw k (for no credit).
    """
    if _os.environ.get("NBGRADER_EXECUTION"):  # being graded or validated: nothing to say
        return
    if item not in _CHECK_ITEMS:
        print(f"check: {item!r} is not an exact question of this notebook; its names: "
              + ", ".join(_CHECK_ITEMS))
        return
    what = f"check {item}" + (f" (practice {_PRACTICE})" if _PRACTICE else "")
    try:
        payload = {"item": str(item), "answer": _wire(answer)}
    except (TypeError, ValueError, RecursionError):
        print(f"{what}: this answer cannot be sent (not an exact value).")
        return
    if _PRACTICE:
        payload["draw"] = _PRACTICE
    reply = _ask("practice" if _PRACTICE else "check", payload, what)
    if reply is not None:
        print(f"{what}: {reply.get('message', 'no answer from the check service')}")


_PRACTICE = None  # the practice draw check() checks on (None: your own numbers)


def practice(draw):
    """Fresh numbers for practice, for no credit: N = practice(1), then practice(2), ...

    Practice opens at your due date (earlier if your instructor says so). Its numbers are
    never your graded ones; check() then checks your answers on them, as often as your
    instructor allows. Run the numbers cell again to return to your own numbers. While the
    notebook is graded, practice() gives your own numbers: hand-ins are graded on them.
    """
    global _PRACTICE
    own = your_numbers(VARIANT_ID)
    if _os.environ.get("NBGRADER_EXECUTION"):
        return own
    reply = _ask("practice", {"problem_set": _PS, "draw": draw}, f"practice({draw!r})")
    sid = reply.get("numbers_id") if isinstance(reply, dict) else None
    if not isinstance(sid, str) or reply.get("verdict") != "practice":
        if reply is not None:
            print(f"practice({draw!r}): {reply.get('message', 'no answer')}")
        print("N is not changed: these are your own numbers.")
        return own
    _PRACTICE = reply.get("draw")
    numbers = your_numbers(sid)
    print(f"Practice numbers {_PRACTICE} (for no credit; check() now checks on these; run "
          f"the numbers cell again for your own). {reply.get('message', '')}")
    for name, value in vars(numbers).items():
        shown = value
        if isinstance(value, _sympy.MatrixBase):
            shown = list(value) if value.cols == 1 else value.tolist()
        print(f"  N.{name} = {shown}")
    return numbers'''
