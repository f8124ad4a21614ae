"""The judge: hidden tests scored in the grader's own process, never in the student's kernel.

In: a notebook around autograde's Execute step. :class:`.preprocessors.WriteCases`, before
it, writes the hidden case inputs (salted per student with the grader's secret,
:mod:`kit.secret`) and each test cell's plan (:mod:`.plan`) where the probe in the kernel reads
them, and takes the hidden tests' code out of what the kernel runs;
:class:`.preprocessors.JudgeHiddenTests`, after it, scores what the probe sent back against
the reference (:mod:`.score`, under a time and memory limit: :mod:`.limits`), names the
student's numbers (:mod:`.identity`) and diagnoses forbidden shortcuts (:mod:`.forbidden`).
Out: each test cell's score and feedback lines, which nbgrader's SaveAutoGrades stores.
"""
