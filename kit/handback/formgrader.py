"""Formgrader's submission pages, rendered by the feedback page's exporter.

nbgrader's formgrader renders a submission's page on every view, with nbconvert's
``HTMLExporter``: for an honest ps4 submission that took about 2 CPU s a view (more on a
busy machine), half of it BeautifulSoup's pass over the finished page and a fifth pygments
on the problem set's own cells, the same in every submission. A TA waited seconds for each
page, and a busy server ran past a browser's patience; with this exporter a view takes
about 0.1 s once the server has shown one submission (0.6 s for the first). This Jupyter
server extension (enabled by :data:`SERVER_CONFIG` in ``etc/jupyter/jupyter_server_config.d``,
placed by ``make venv`` with the due panel's) gives formgrader, once every extension has
loaded, :class:`~kit.handback.exporter.FeedbackExporter` built from the same configuration:
the same template (nbgrader's ``formgrade``), the same preprocessors (the course's
:class:`~kit.html.sanitize.SanitizeStudentContent`), the accessibility pass on the text, the
problem set's highlighted cells kept between views, and maths as MathML, which reads without
the network that formgrader's MathJax needs. Only formgrader's own exporter, a plain
``HTMLExporter``, is replaced; a server without formgrader is left as it is.
"""

from __future__ import annotations

from nbconvert.exporters import HTMLExporter

from kit.handback.exporter import FeedbackExporter

__all__ = ["SERVER_CONFIG", "use_feedback_exporter"]

#: the file that enables this extension (under etc/jupyter/jupyter_server_config.d)
SERVER_CONFIG = "kit.handback.formgrader.json"
#: where nbgrader's formgrader keeps its exporter (its web application's settings)
SETTING = "nbgrader_exporter"


def use_feedback_exporter(settings: dict) -> bool:
    """Replace formgrader's ``HTMLExporter`` in ``settings`` with a
    :class:`~kit.handback.exporter.FeedbackExporter` of the same configuration; whether it
    did."""
    exporter = settings.get(SETTING)
    if type(exporter) is not HTMLExporter:
        return False
    settings[SETTING] = FeedbackExporter(config=exporter.config)
    return True


def _jupyter_server_extension_points():
    return [{"module": "kit.handback.formgrader"}]


def _load_jupyter_server_extension(serverapp):
    """Nothing yet: extensions load in the order of their names, so formgrader's exporter
    exists only after this one loaded."""


async def _start_jupyter_server_extension(serverapp):
    """Once every extension has loaded, before the server takes requests."""
    if use_feedback_exporter(serverapp.web_app.settings):
        serverapp.log.info("kit.handback.formgrader: formgrader renders with FeedbackExporter")
