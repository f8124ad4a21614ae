"""Intake: what students hand in, refused when it is not plain files, before anything reads it.

In: the exchange's ``inbound/`` (``nbgrader collect``), an LMS zip (``nbgrader zip_collect``,
``python -m kit.collect``), or hand-ins laid in ``submitted/`` (the demo class,
:mod:`.submitted`). Out: ``submitted/<student>/<ps>/`` holding plain files only; a hand-in
with a link, a FIFO or a device (:mod:`.safefiles`) is left out with one line naming it;
and ``received/<student>/<ps>.json``, when the course received each hand-in
(:mod:`.received`: the one time every rule reads, never the hand-in's ``timestamp.txt``).
Of a student's several hand-ins, :mod:`.choose` takes the latest received by their due date
(which the course's calendar gives, :mod:`kit.term.intake`), else the latest, and records
the others as not taken.
Plugs into nbgrader's collect (:class:`.steps.SafeCollect`), zip_collect
(:class:`.steps.SafeFileNameCollector`) and the first of autograde's sanitize steps
(:class:`.steps.CheckSubmittedFiles`, then :class:`.metadata.CheckCellMetadata`).
"""
