"""What the check service allows: which items, how many checks each, from the course config.

The instructor sets it in the course's ``nbgrader_config.py`` (read again when the file
changes, no restart needed)::

    c.KpcaCheck.attempts = 3                          # checks per student and item
    c.KpcaCheck.limits = {"ps3_mercer": 0,            # a problem set (0: off) ...
                          "ps1_lift_point": 5}        # ... or one item
    c.KpcaCheck.closed = ["ps6_kernel_regression"]    # checks off (an exam)
    c.KpcaCheck.wrong_check_cost = 0.25               # a wrong check costs 1/4 of the item
    c.KpcaCheck.student_groups = ["nbgrader-kernel_pca"]   # who may check (the default)

An item's limit is its own entry in ``limits``, else its problem set's, else the default:
``attempts``, but never so many that checking the item's commonest values would be right
for more than a tenth of the students (:mod:`kit.checks.guessing`), so that guessing
through a small domain is worth little; an item whose commonest value alone is that common
gets 0 and cannot be checked unless ``limits`` names it. A yes/no item (ps3's verdicts: one
check would give it away) is never checked, whatever ``limits`` says.

Who may check: hub users in one of ``student_groups`` (default ``nbgrader-<course id>``,
nbgrader's students' group) and in none of ``staff_groups`` (default
``formgrade-<course id>``); a course without a course id and without ``student_groups``
refuses every check.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path

from traitlets import Bool, Dict, Float, Int, List, Unicode
from traitlets.config import Configurable

__all__ = ["KpcaCheck", "Policy", "item_problem_set"]


class KpcaCheck(Configurable):
    """The check service's settings (``c.KpcaCheck.*`` in nbgrader_config.py)."""

    enabled = Bool(True, help="Answer checks at all (False: every check is refused).").tag(
        config=True)
    attempts = Int(3, help="Checks per student and exact item (before the small-domain "
                           "cap, see kit/checks/policy.py).").tag(config=True)
    limits = Dict(help="{item or problem set: checks}; 0 turns it off.").tag(config=True)
    closed = List(Unicode(), help="Problem sets whose checks are off (an exam).").tag(
        config=True)
    db_url = Unicode("", help="SQLAlchemy URL of the attempts table; empty: the course's "
                              "gradebook (CourseDirectory.db_url).").tag(config=True)
    judge_seconds = Float(5.0, help="Longest a judgement may take (judging time only: "
                                    "waiting for a free judge is not counted).").tag(config=True)
    workers = Int(4, help="Judgements at once (each in its own process; one per student "
                          "at a time).").tag(config=True)
    queue_seconds = Float(8.0, help="Longest a check waits for a free judge (and behind "
                                    "the same student's earlier check) before it is "
                                    "refused, no check used.").tag(config=True)
    cooldown_seconds = Float(60.0, help="After a check of theirs ran out of time (or "
                                        "stopped the judge), a student's checks are "
                                        "refused this long.").tag(config=True)
    per_minute = Int(30, help="Requests one student may make per minute.").tag(config=True)
    warm_judges = Bool(True, help="Draw a key of each problem set before the first check "
                                  "(seconds at start; each check is then faster).").tag(
        config=True)
    student_groups = List(Unicode(), help="Hub groups whose members may check (empty: "
                                          "nbgrader-<course id>).").tag(config=True)
    staff_groups = List(Unicode(), help="Hub groups whose members may not check, even in a "
                                        "students' group (empty: formgrade-<course id>)."
                          ).tag(config=True)
    wrong_check_cost = Float(
        0.0, min=0.0, max=1.0,
        help="Share of an exact item's points a right answer loses per wrong check made "
             "before it was checked right and before hand-in (0, the default: checks cost "
             "nothing). Applied when grading (kit/judge/score.py), never below 0.",
    ).tag(config=True)


def item_problem_set(item: str) -> str | None:
    """The problem set of the exact item ``item``, or None when there is no such item."""
    from kpca_ref import variants

    if not isinstance(item, str) or len(item) > 100:
        return None
    try:
        ps = variants.problem_set_of(item)
        return ps if item in variants.module(ps).ITEMS else None
    except (KeyError, ValueError, ModuleNotFoundError):
        return None


@functools.cache
def default_limit(item: str, attempts: int) -> int:
    """``attempts``, or fewer where guessing the commonest values would pay
    (:func:`kit.checks.guessing.guess_limit`); 0 for a yes/no item."""
    from kit.checks.guessing import guess_limit, yes_no

    return 0 if yes_no(item) else guess_limit(item, attempts)


class Policy:
    """The settings of a course directory, re-read when its nbgrader_config.py changes."""

    def __init__(self, root: Path, overrides: dict | None = None):
        self.root, self.overrides = Path(root), overrides or {}
        self._stamp, self._settings, self._db_url, self._course_id = None, None, "", ""

    @property
    def settings(self) -> KpcaCheck:
        path = self.root / "nbgrader_config.py"
        stamp = path.stat().st_mtime_ns if path.exists() else None
        if self._settings is None or stamp != self._stamp:
            from traitlets.config import Config
            from traitlets.config.loader import PyFileConfigLoader

            config = (PyFileConfigLoader(path.name, path=str(self.root)).load_config()
                      if path.exists() else Config())
            for key, value in self.overrides.items():
                setattr(config.KpcaCheck, key, value)
            self._settings, self._stamp = KpcaCheck(config=config), stamp
            course_db = config.CourseDirectory.get("db_url") if "CourseDirectory" in config else None
            course_id = (config.CourseDirectory.get("course_id") if "CourseDirectory" in config
                         else None)
            self._course_id = course_id if isinstance(course_id, str) else ""
            self._db_url = (self._settings.db_url or os.environ.get("KPCA_DB_URL")
                            or (course_db if isinstance(course_db, str) else "")
                            or f"sqlite:///{self.root / 'gradebook.db'}")
        return self._settings

    @property
    def db_url(self) -> str:
        self.settings  # noqa: B018 - (re)loads
        return self._db_url

    def groups(self) -> tuple[list[str], list[str]]:
        """``(students' groups, staff groups)``: the settings, else nbgrader's groups of the
        course id (``nbgrader-<id>``, ``formgrade-<id>``); no students' group without either."""
        s = self.settings
        cid = self._course_id
        students = list(s.student_groups) or ([f"nbgrader-{cid}"] if cid else [])
        staff = list(s.staff_groups) or ([f"formgrade-{cid}"] if cid else [])
        return students, staff

    def limit(self, item: str) -> tuple[int, str]:
        """``(checks allowed, why none)`` for ``item`` (a known item)."""
        s = self.settings
        ps = item_problem_set(item)
        if not s.enabled:
            return 0, "checks are turned off for this course"
        if ps in s.closed:
            return 0, f"checks are closed for {ps} (your instructor turned them off)"
        from kit.checks.guessing import yes_no

        if yes_no(item):
            return 0, (f"{item} cannot be checked: it says yes or no, and one check would "
                       "give that away")
        if item in s.limits:
            limit = int(s.limits[item])
        elif ps in s.limits:
            limit = int(s.limits[ps])
        else:
            limit = default_limit(item, s.attempts)
            if limit == 0:
                return 0, (f"{item} cannot be checked: its commonest answers are shared by "
                           "so many students that a check would give it away")
        return max(limit, 0), f"checks are turned off for {item}"
