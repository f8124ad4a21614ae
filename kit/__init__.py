"""The course pipeline: source -> release -> submitted -> autograded -> feedback, CSV, report.

The commands a TA types are the modules at this level (``python -m kit.<name>``):
:mod:`kit.release`, :mod:`kit.collect`, :mod:`kit.autograde`, :mod:`kit.report`
(a package with its ``__main__``), :mod:`kit.variants`, :mod:`kit.gradebook_move`,
:mod:`kit.demo` (the main job, with :mod:`kit.demo_term`, its three weeks of a term), :mod:`kit.sandbox` (``--install``, ``--check``) and the set-up
steps ``make venv`` runs (:mod:`kit.secret`, :mod:`kit.kernelenv`, :mod:`kit.duepanel`: each
student's due date in the hub's Assignments panel). :mod:`kit.course` says
where a course lives. Each stage of the flow is a package, in the order the data goes:

- :mod:`kit.intake`    hand-ins in, plain files only
- :mod:`kit.sandbox`   a notebook run in the bubblewrap sandbox
- :mod:`kit.judge`     hidden tests scored outside the kernel
- :mod:`kit.engines`   where grading jobs run: local processes or a Dask cluster
- :mod:`kit.handback`  feedback pages for the students
- :mod:`kit.html`      student content made inert for every HTML view
- :mod:`kit.gradebook` grades out, hand grades in, the move to PostgreSQL
- :mod:`kit.itemstats` item statistics and fairness across variants, for the report
- :mod:`kit.report`    the class report
- :mod:`kit.solutions` worked solutions on each student's numbers, after their due date

Imports run one way, down this list's layers: ``tests/integrity/test_import_direction.py``.
"""
