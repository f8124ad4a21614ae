"""Item statistics and fairness across variants, for the class report and two CSVs.

In: the per-part grades (the rows of ``reports/grades_by_part.csv``, :mod:`kit.gradebook.parts`),
the judge's named mistakes on each graded test cell, the check service's attempts table
(:mod:`kit.checks.store`) and each student's candidate of every family of numbers
(:mod:`kpca_ref.variants`). Out: ``reports/item_stats.csv``, ``reports/fairness.csv`` and
two sections of ``reports/class_report.html`` (:func:`kit.itemstats.output.sections`).

* :mod:`.table` turns the rows into one score matrix per problem set;
* :mod:`.items` gives each graded part and graded cell its mean share of points, difficulty
  (share with full points), discrimination (the point-biserial correlation with the
  rest-score) and flags, with "too few students" below :data:`.items.MIN_STUDENTS`;
* :mod:`.fairness` tests, per family of numbers, whether its candidates differ (a permutation
  chi-square test) and, per candidate with enough students, whether it is harder than the
  rest (Fisher's exact test, one-sided), with Holm's correction over the report;
* :mod:`.gather` reads all of these from a course; :mod:`.synthetic` builds a gradebook-like
  table with planted effects (the benchmark and the tests);
* :mod:`.output` writes the CSVs (cells protected against formula injection) and the HTML
  (everything escaped).
"""
