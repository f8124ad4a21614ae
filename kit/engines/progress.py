"""How ``kit.autograde`` reports its progress: a bar on a terminal, plain lines elsewhere.

On a terminal, a tqdm bar redrawn in place (carriage returns), with a line above it for each
submission that needs the TA's attention. Anywhere else (a log file, a pipe, CI) carriage-return
frames would pile up into one unreadable line, so each finished notebook gets one line instead:
``autograde 3/40: ada_lee / ps1_circle_lift: graded, 23 points``.
"""

from __future__ import annotations

import sys

from kit.inert import inert


def is_terminal(stream) -> bool:
    """Whether ``stream`` is a terminal (a stream without ``isatty`` is not)."""
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # no isatty, or a closed stream
        return False


def what_happened(outcome) -> str:
    """What happened to one notebook (a :class:`kit.engines.job.Outcome`), for the lines."""
    if outcome.status == "graded":
        return f"graded, {outcome.total:g} points"
    return "could not be graded" if outcome.status == "failed" else outcome.status


class Progress:
    """Progress of ``total`` grading jobs on ``stream`` (default ``sys.stdout``).

    Parameters
    ----------
    total : int
        How many notebooks will be reported.
    stream : file-like, optional
        Where to write; a bar only if it is a terminal (:func:`is_terminal`).
    desc : str
        The label in front of the bar and of each line.
    """

    def __init__(self, total: int, stream=None, desc: str = "autograde"):
        self.total, self.desc, self.done = total, desc, 0
        self.stream = stream if stream is not None else sys.stdout
        self.bar = None
        if is_terminal(self.stream):
            from tqdm import tqdm

            self.bar = tqdm(total=total, desc=desc, unit="nb", file=self.stream)

    def finished(self, student: str, assignment: str, what: str, attention: str = "") -> None:
        """One notebook done: ``what`` happened to it; ``attention`` is a line for the TA, if any."""
        self.done += 1
        student, what, attention = inert(student), inert(what), inert(attention)
        if self.bar is not None:
            if attention:
                self.bar.write(f"  ! {student} / {assignment}: {attention}", file=self.stream)
            self.bar.update(1)
            return
        line = f"{self.desc} {self.done}/{self.total}: {student} / {assignment}: {what}"
        if attention:
            line += f" ! {attention}"
        print(line, file=self.stream, flush=True)

    def write(self, line: str) -> None:
        """A line of its own (above the bar on a terminal)."""
        if self.bar is not None:
            self.bar.write(line, file=self.stream)
        else:
            print(line, file=self.stream, flush=True)

    def note(self, **values) -> None:
        """Show ``values`` (workers in use, throughput) beside the bar; lines mode shows them
        in the summary only, not in every line."""
        if self.bar is not None:
            self.bar.set_postfix(refresh=False, **values)

    def close(self) -> None:
        """Finish the bar (nothing to do for lines)."""
        if self.bar is not None:
            self.bar.close()
