"""The course pipeline: source -> release -> submitted -> autograded -> feedback, CSV, report.

Each step has one module named after it:

- :mod:`kit.course`     where the course lives and how nbgrader is configured for it
- :mod:`kit.release`    generate the student versions from ``source/``
- :mod:`kit.autograde`  grade submitted notebooks and read the scores back
"""
