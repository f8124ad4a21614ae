"""Where a worked solution goes: a folder (and a zip) per student, and the hub's exchange.

* **Every course**: ``solutions/<student>/<ps>/`` holds ``<ps>_solution.ipynb``, its page
  ``<ps>_solution.html``, both in ``<ps>_solution.zip`` (one file for a TA to upload to the
  student's LMS submission), and ``released.json`` (which form, when, the due dates).
* **A JupyterHub course** (``--hub``): the student's feedback page with the worked solution
  appended (:func:`with_solution`) is laid in ``solutions_hub/<student>/<ps>/<ps>.html``
  beside the feedback's ``timestamp.txt`` and ``submission_secret.txt``, and nbgrader's own
  ``release_feedback`` puts it into the exchange's ``feedback/`` under the name only that
  student's submission can compute. ``nbgrader fetch_feedback`` (or *Fetch Feedback* in the
  *Assignments* panel) then brings the feedback page with the solution below it. A student
  with no feedback page (nothing graded) has nothing to attach it to: the TA hands them
  their folder.
"""

from __future__ import annotations

import html
import json
import re
import shutil
import zipfile
from pathlib import Path

__all__ = ["FOLDER", "HUB_FOLDER", "release_to_exchange", "stage_for_hub", "with_solution", "write_files"]

#: per-student solutions (git ignores it)
FOLDER = "solutions"
#: pages staged for nbgrader's release_feedback (git ignores it)
HUB_FOLDER = "solutions_hub"
_ID = re.compile(r'(\s(?:id|for|aria-labelledby|aria-describedby)=")')
_HREF = re.compile(r'(\shref="#)')
_MAIN = re.compile(r"<main\b[^>]*>(.*)</main>", re.DOTALL)


def _atomic(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_bytes(data)
    tmp.replace(path)


def write_files(folder: Path, ps: str, notebook_text: str, page: str, record: dict) -> list[Path]:
    """Write one student's solution files into ``folder``; returns their paths."""
    folder.mkdir(parents=True, exist_ok=True)
    nb_path, page_path = folder / f"{ps}_solution.ipynb", folder / f"{ps}_solution.html"
    _atomic(nb_path, notebook_text.encode("utf-8"))
    _atomic(page_path, page.encode("utf-8"))
    zipped = folder / f"{ps}_solution.zip"
    tmp = zipped.with_name(f".{zipped.name}.tmp")
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.write(nb_path, nb_path.name)
        zf.write(page_path, page_path.name)
    tmp.replace(zipped)
    _atomic(folder / "released.json", (json.dumps(record, indent=1, ensure_ascii=False) + "\n").encode())
    return [nb_path, page_path, zipped]


def with_solution(feedback_page: str, solution_page: str, heading: str) -> str:
    """The feedback page with the solution page's cells appended in a section of its own.

    The solution's element ids get a ``solution-`` prefix (no id twice on the page), and its
    cells go inside the feedback's one ``<main>``; ``heading`` is escaped.
    """
    found = _MAIN.search(solution_page)
    body = found.group(1) if found else solution_page
    body = _HREF.sub(r"\1solution-", _ID.sub(r"\1solution-", body))
    section = (f'<section aria-labelledby="kpca-worked-solution"><hr>'
               f'<h1 id="kpca-worked-solution">{html.escape(heading)}</h1>\n{body}\n</section>\n')
    at = feedback_page.rfind("</main>")
    if at < 0:
        at = feedback_page.rfind("</body>")
    if at < 0:
        raise ValueError("the feedback page has no </main> or </body> to append the solution to")
    return feedback_page[:at] + section + feedback_page[at:]


def stage_for_hub(root: Path, ps: str, student: str, solution_page: str, heading: str) -> str:
    """Lay the feedback page with the solution for :func:`release_to_exchange`; ``""`` when
    done, else why not (no feedback page or no submission secret: nothing graded to attach to)."""
    feedback = root / "feedback" / student / ps
    files = [feedback / f"{ps}.html", feedback / "timestamp.txt", feedback / "submission_secret.txt"]
    missing = [f.name for f in files if not f.is_file()]
    if missing:
        return (f"no feedback page to attach the solution to (missing {', '.join(missing)} in "
                f"feedback/<student>/{ps}/: nothing graded, or not collected through the exchange); "
                f"hand them {FOLDER}/<student>/{ps}/")
    stage = root / HUB_FOLDER / student / ps
    stage.mkdir(parents=True, exist_ok=True)
    page = with_solution(files[0].read_text(encoding="utf-8"), solution_page, heading)
    _atomic(stage / f"{ps}.html", page.encode("utf-8"))
    for name in ("timestamp.txt", "submission_secret.txt"):
        shutil.copyfile(feedback / name, stage / name)
    return ""


def release_to_exchange(course, ps: str) -> None:
    """nbgrader's ``release_feedback`` of the staged pages of ``ps`` (every student staged)."""
    from nbgrader.apps import NbGraderAPI

    from kit.course import prepare_environment, quiet_gradebook

    prepare_environment()
    quiet_gradebook()
    config = course.config()
    config.CourseDirectory.feedback_directory = HUB_FOLDER
    result = NbGraderAPI(config=config).release_feedback(ps)
    if not result.get("success"):
        lines = (result.get("error") or result.get("log") or "").strip().splitlines()
        raise ValueError(f"release of the solutions to the exchange failed: "
                         f"{lines[-1] if lines else 'see nbgrader'}")
