"""HTML sanitising: no student content runs in a browser.

In: an autograded notebook (its outputs, markdown, raw cells, attachments, metadata). Out:
the same notebook made inert (:mod:`.sanitize`; the markdown a student wrote:
:mod:`.markdown`). Plugs into autograde's sanitize steps, generate_feedback and nbconvert's
HTML export (``nbgrader_config.py``), so formgrader and the feedback pages show it safely.
The pages' maths is MathML written at export (:mod:`.maths`), so they need no script and no
network.
"""
