"""Copying evidence for the instructor: ``reports/copying.csv`` and a section of the class report.

Two signals, neither of which changes a grade:

- :mod:`.keys` (strong): an exact answer a student handed in that is not the key of the
  student's own numbers but is exactly the key of ANOTHER student's numbers
  (:mod:`kpca_ref.variants`), listed per item with the other student(s). The answers are the
  values the judge recorded on each graded test cell (``answers`` of the judge's record,
  :data:`kit.course.JUDGE_KEY`); a value that is the key of many variants (a verdict,
  a small count) is not distinctive and is never listed (:data:`.keys.DISTINCTIVE`).
- :mod:`.code` (weaker): code cells that are identical across students once names,
  comments and whitespace are normalised, listed as groups; the release's own code, the
  instructor's solution and short cells are left out.

:mod:`.evidence` gathers both for a course and writes the CSV and the report's HTML section.
"""
