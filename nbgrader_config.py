"""nbgrader configuration of the kernel PCA course kit (the repository root is the course)."""

import os

c = get_config()  # noqa: F821  (nbgrader injects get_config)

c.CourseDirectory.course_id = "kernel_pca"
c.CourseDirectory.root = os.path.dirname(os.path.abspath(__file__))
# The gradebook: gradebook.db (sqlite) in the course, unless KPCA_DB_URL names another
# database, e.g. a PostgreSQL server shared by several grading machines:
#   export KPCA_DB_URL=postgresql://grader:PASSWORD@dbhost:5432/kernel_pca
# Every nbgrader command, formgrader and the kit (kit/course.py) then use it. Moving an
# existing gradebook.db there: python -m kit.gradebook_move --to postgresql://... (README).
c.CourseDirectory.db_url = (os.environ.get("KPCA_DB_URL")
                            or "sqlite:///" + c.CourseDirectory.root + "/gradebook.db")

# JupyterHub course: release_assignment, collect and release_feedback go through this
# exchange directory (students reach it through /etc/jupyter/nbgrader_config.py, see the
# README). KPCA_EXCHANGE points the course at another one (the tests use a temporary one).
c.Exchange.root = os.environ.get("KPCA_EXCHANGE", "/srv/nbgrader/exchange")
# Students write into the exchange's inbound/ and collect reads it with the TA's rights:
# this collect copies plain files only, and skips (one line each) a hand-in holding a
# symbolic link, a hard link, a FIFO or a device (kit/intake/steps.py). Of a student's
# hand-ins it takes the latest the exchange received by their own due date (and grace) in
# the course calendar, else the latest, and records the others (kit/term/intake.py).
c.ExchangeFactory.collect = "kit.term.intake.TermCollect"

# LMS course: `nbgrader zip_collect <ps>` (or `python -m kit.collect --zip`) files each
# notebook of downloaded/<ps>/extracted/ by its name, Canvas style:
#   <student>[_late]_<lms user id>_<submission id>_<ps>[-<n>].ipynb
#   e.g. ada_reference_late_4417_90210_ps1_circle_lift-1.ipynb -> student ada_reference
# The student id may contain underscores (the two numbers fix where it ends); "-<n>" is
# the LMS renaming a re-submitted file. nbgrader matches the whole path, hence the `.*/`.
c.FileNameCollectorPlugin.named_regexp = (
    r"^(?:.*/)?(?P<student_id>[^/]+?)(?i:_late)?_(?P<lms_user_id>\d+)_(?P<submission_id>\d+)_"
    r"(?P<file_id>[A-Za-z][^/]*?)(?:-\d+)?\.ipynb$"
)
# nbgrader's collector for those names, but a file that is not a plain file (a link, a
# FIFO) is not imported, and a student with two files for one notebook is skipped with a
# line instead of stopping the whole import (kit/intake/steps.py).
c.ZipCollectApp.collector_plugin = "kit.intake.steps.SafeFileNameCollector"

# Each cell gets 15 s; a cell that runs over is interrupted and scores 0, the rest still run.
c.Execute.timeout = 15
c.Execute.interrupt_on_timeout = True
# Once the last cell has run, the kernel (and its sandbox) is killed rather than asked to
# shut down: nothing is lost, and a polite shutdown cost about 0.8 s of every notebook.
c.Execute.shutdown_kernel = "immediate"
# nbconvert validates the whole notebook after every step of a conversion: nineteen times
# per autograded notebook (six sanitising steps, thirteen grading steps). Only the notebook
# that leaves the last step reaches the file: it is validated there, and an invalid one
# fails the same way (nbformat.ValidationError).
c.NotebookExporter.optimistic_validation = True

# What students see in place of the solutions.
c.ClearSolutions.code_stub = {
    "python": "# YOUR CODE HERE\nraise NotImplementedError()",
}
c.ClearSolutions.text_stub = "YOUR ANSWER HERE"

# Feedback pages must not show hidden tests: drop their code, and shorten every
# traceback (it would quote the failing hidden line) to its one-line message.
# No student content runs in a browser (kit/html/sanitize.py): the autograded notebook is
# sanitised, and so is every page rendered from it (feedback here; formgrader through the
# HTMLExporter setting below, which also covers notebooks autograded before the step existed).
# In feedback it comes last: the graders' comments (GetGrades) and the cells' labels are
# made inert with the rest of what the page prints.
c.GenerateFeedback.preprocessors = [
    "nbgrader.preprocessors.GetGrades",
    "kit.handback.feedback.LateLine",  # what lateness took and why (kit/term), one line
    "nbconvert.preprocessors.CSSHTMLHeaderPreprocessor",
    "kit.feedback_labels.LabelTestCells",
    "nbgrader.preprocessors.ClearHiddenTests",
    "kit.handback.feedback.HideTracebacks",
    "kit.html.sanitize.SanitizeStudentContent",
]
# The feedback page lists each graded cell by its part and point split (the label above),
# with the course's copy of nbgrader's feedback template; nbgrader's own stays the base of
# every other page, formgrader's included (kit.feedback_labels.template_dirs).
c.HTMLExporter.extra_template_basedirs = __import__("kit.feedback_labels").feedback_labels.template_dirs()
# The same page as nbconvert's HTMLExporter, at 40% of its CPU (kit/handback/exporter.py).
c.GenerateFeedback.exporter_class = "kit.handback.exporter.FeedbackExporter"
# validated once, after its last step, as autograde's notebooks are (NotebookExporter above)
c.FeedbackExporter.optimistic_validation = True
c.HTMLExporter.preprocessors = ["kit.html.sanitize.SanitizeStudentContent"]

# `nbgrader export`: the stock CSV columns, then the auto-graded and hand-graded points and
# the TA's comments (kit/gradebook/export_plugin.py).
c.ExportApp.plugin_class = "kit.gradebook.export_plugin.HandGradesCsvExport"

# The hidden tests are judged outside the student's kernel (kit/judge/preprocessors.py): the case inputs
# are written before the kernel starts, and the results it emits are scored after it ran.
# SANDBOX SWITCH: kit.sandbox.execute.SandboxedExecute runs every graded notebook (nbgrader
# autograde, kit.autograde, make demo) in the kpca-sandbox kernel (kit/sandbox/wrapper.py:
# bubblewrap, no network, resource limits, nothing of the course visible but the student's
# own folder), installed by `make venv`. Grading refuses to run where the sandbox cannot
# start; it never falls back to a plain kernel. `nbgrader validate` keeps the plain kernel.
c.Autograde.autograde_preprocessors = [
    "kit.judge.preprocessors.WriteCases",
    "kit.sandbox.execute.SandboxedExecute",
    "kit.judge.preprocessors.JudgeHiddenTests",
    "nbgrader.preprocessors.IgnorePattern",
    "nbconvert.preprocessors.ClearMetadataPreprocessor",
    "nbgrader.preprocessors.LimitOutput",
    "nbgrader.preprocessors.SaveAutoGrades",
    # after SaveAutoGrades: it compares a written answer with its release checksum to tell
    # "no response", and a sanitised source must not pass for an answer
    "kit.html.sanitize.SanitizeStudentContent",
    # the hand-in's time is when the course received it, never its timestamp.txt
    # (kit/intake/received.py): plain `nbgrader autograde` and formgrader write that first
    "kit.intake.received.StampReceivedTime",
    # the course calendar (kit/term): due date, extension and received time to the gradebook,
    # then nbgrader's late penalty, asking the calendar's policy (plugin_class below)
    "kit.term.late.SyncCalendar",
    "nbgrader.preprocessors.AssignLatePenalties",
    "kit.intake.metadata.CheckCellMetadata",
]
# Late penalties: the course calendar's policy (grace, per day or step, cap, no late
# hand-ins; exemptions), set with `python -m kit.term`; no term.json, no penalty.
c.AssignLatePenalties.plugin_class = "kit.term.late.TermLatePenalty"
# Exact answers are graded on each student's own numbers (kpca_ref.variants), drawn from the
# submission's nbgrader student id. A wrong answer's feedback line names the student's numbers
# and, where a classic mistake explains it, the mistake; set this to True to also show the
# expected value (off: feedback then cannot be passed around as an answer key).
c.JudgeHiddenTests.show_expected = False
# Whose numbers a notebook shows. On the course's JupyterHub they are always the login's (a
# typed STUDENT_ID is ignored, with a warning), so a hub course sets this to True and grading
# does the same: a typed id that differs costs nothing there. False (an LMS course, and the
# demo): the typed id draws the numbers, and exact answers drawn for another id than the
# submission's earn nothing, with a line naming both ids (kit/judge/identity.py).
# `make hub` sets it in its copy of the course.
c.WriteCases.numbers_from_login = False

# Stock sanitizing steps; only the metadata check is swapped for one that validates the same
# metadata with the same schema and errors, but checks the schema once (kit/intake/metadata.py).
# First, a submission whose submitted/ folder holds a link, a FIFO or a device (laid there
# by hand) is not graded at all (kit/intake/steps.py).
c.Autograde.sanitize_preprocessors = [
    "kit.intake.steps.CheckSubmittedFiles",
    "nbgrader.preprocessors.ClearOutput",
    "nbgrader.preprocessors.DeduplicateIds",
    "nbgrader.preprocessors.OverwriteKernelspec",
    "nbgrader.preprocessors.OverwriteCells",
    "kit.intake.metadata.CheckCellMetadata",
]
