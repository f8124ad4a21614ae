"""The class report for the instructor: ``python -m kit.report`` -> ``reports/class_report.html``.

In: the outcomes of grading and the gradebook. Out: one self-contained page with, for each
problem set, the score distribution, auto and hand-graded points, the hardest parts and the
mistakes named most often, then every student's feedback pages (:mod:`.page`, from the
numbers of :mod:`.data` and the plots of :mod:`.plot`), and ``reports/grades.csv`` beside it.
Runs after nbgrader's autograde (and generate_feedback, formgrader's hand grading).
"""
