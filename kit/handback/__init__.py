"""What goes back to the students: one feedback page per graded submission.

In: an autograded notebook and its grades. Out: ``feedback/<student>/<ps>/<ps>.html``,
written by nbgrader's generate_feedback with the hidden test code cleared and tracebacks
replaced by their one-line message (:class:`.feedback.HideTracebacks`, in
``nbgrader_config.py``). (The package is not called ``feedback``: a folder of that name is
nbgrader's output, which git and ruff ignore.)
"""
