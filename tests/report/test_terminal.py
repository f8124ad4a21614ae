"""Terminal output: a progress bar on a terminal only, one line per notebook elsewhere, and
the demo's closing lines (the grade table, then the paths of what it wrote)."""

from __future__ import annotations

import io
import os
import re
import select

from kit import demo
from kit.engines.progress import Progress, is_terminal
from tests.support.graded_class import MISSING, PS, ROSTER_NAMES


class FakeTerminal(io.StringIO):
    def isatty(self):
        return True


def test_log_stream_gets_one_line_per_notebook_and_no_frames(graded):
    text = graded.progress
    assert "\r" not in text
    lines = text.splitlines()
    assert len(lines) == len(ROSTER_NAMES) + 1
    assert [ln.split(":")[0] for ln in lines] == [f"autograde {i}/6" for i in range(1, 7)]
    by_student = {re.match(r"autograde \d+/6: (\w+) / ", ln).group(1): ln for ln in lines}
    assert by_student["ada"].endswith(f"{PS}: graded, 23 points")
    assert by_student[MISSING].endswith("not submitted")
    assert "could not be graded ! " in by_student["pat"] and "not a readable notebook" in by_student["pat"]


def test_terminal_gets_a_bar_and_the_attention_lines():
    term = FakeTerminal()
    progress = Progress(2, term)
    progress.finished("ada", PS, "graded, 23 points")
    progress.finished("pat", PS, "could not be graded", "not a readable notebook")
    progress.close()
    text = term.getvalue()
    assert "\r" in text and "2/2" in text
    assert "  ! pat / ps1_circle_lift: not a readable notebook\n" in text
    assert "autograde 1/2: ada" not in text  # no log lines on a terminal


def read_all(fd: int, quiet: float = 1.0) -> str:
    """Everything written to the pty so far: a pty hands its output over in pieces, so read
    until nothing more arrives for ``quiet`` seconds."""
    chunks = []
    while select.select([fd], [], [], quiet)[0]:
        chunk = os.read(fd, 65536)
        if not chunk:
            break
        chunks.append(chunk)
    return b"".join(chunks).decode(errors="replace")


def test_a_real_pty_gets_the_bar_and_a_file_the_lines(tmp_path):
    main, side = os.openpty()
    try:
        with os.fdopen(side, "w", closefd=False) as tty:
            assert is_terminal(tty)
            progress = Progress(1, tty)
            progress.finished("ada", PS, "graded, 23 points")
            progress.close()
            tty.flush()
        drawn = read_all(main)
    finally:
        os.close(main)
        os.close(side)
    assert "\r" in drawn and "1/1" in drawn and "autograde 1/1: ada" not in drawn
    with (tmp_path / "log.txt").open("w") as fh:
        assert not is_terminal(fh)
        progress = Progress(1, fh)
        progress.finished("ada", PS, "graded, 23 points")
    assert (tmp_path / "log.txt").read_text() == f"autograde 1/1: ada / {PS}: graded, 23 points\n"
    assert not is_terminal(object())


def test_demo_ends_with_the_table_and_the_paths_it_wrote(graded):
    course = graded.course
    paths = {"feedback": course.root / "feedback", "grades": course.root / "reports" / "grades.csv",
             "report": course.root / "reports" / "class_report.html"}
    text = demo.closing(course, graded.outcomes, paths, 12.0)
    lines = text.splitlines()
    assert lines[0] == "4 notebooks graded, 1 could not be graded, in 12 s"
    assert lines[1].startswith("  ! pat / ps1_circle_lift: ")
    tail = lines[-3:]
    assert [ln.split(":")[0] for ln in tail] == ["feedback", "grades", "report"]
    for line, path in zip(tail, paths.values()):
        assert line.rstrip("/").endswith(str(path.relative_to(course.root)))
        assert path.exists()
    table_end = lines.index(tail[0]) - 1
    assert lines[table_end] == ""
    assert "written answers are graded by hand" in lines[table_end - 1]
    assert any(ln.startswith("ada ") and ln.split()[-1] == "26.5" for ln in lines)
