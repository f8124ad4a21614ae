"""The *Assignments* panel shows each student their own due date (extension included).

nbgrader's JupyterLab panel (Nbgrader > Assignment List) has no due-date field. Two small
pieces add one, both installed with the kit (``python -m kit.duepanel --install``, which
``make venv`` and :mod:`kit.hub` run; a wheel places the same files through pyproject's
data-files):

- a JupyterLab 4 extension, ``kpca-due-panel`` (``labextension/``: a hand-written,
  pre-built federated extension, no Node at install time), whose one plugin watches the
  panel's rows and writes under each problem set, as text, the line its own Jupyter server
  gives for it;
- a Jupyter server extension (this package, enabled by ``kit.duepanel.json`` in
  ``etc/jupyter/jupyter_server_config.d``): the route ``GET <base_url>kpca/due?ps=...``
  (:mod:`kit.duepanel.route`), which asks the check service's ``POST <prefix>due``
  (:mod:`kit.checks.due`) with the server's own hub token, so each student sees their own
  date and nobody else's. Off the hub it asks nothing and the panel shows nothing more.
"""

from __future__ import annotations

import os

__all__ = ["EXTENSION", "SERVER_CONFIG"]

#: the lab extension's name (its folder under share/jupyter/labextensions)
EXTENSION = "kpca-due-panel"
#: the file that enables the server extension (under etc/jupyter/jupyter_server_config.d)
SERVER_CONFIG = "kit.duepanel.json"


def _jupyter_server_extension_points():
    return [{"module": "kit.duepanel"}]


def _load_jupyter_server_extension(serverapp):
    """Add the route; give it a forwarder only on the hub (a check service's address and
    the server's hub token in the environment)."""
    from jupyter_server.utils import url_path_join

    from kit.duepanel.route import DueForwarder, DueRoute

    web_app = serverapp.web_app
    url = os.environ.get("KPCA_CHECK_URL", "").strip()
    token = os.environ.get("JUPYTERHUB_API_TOKEN", "").strip()
    if token and url.startswith(("http://", "https://")):
        web_app.settings["kpca_due_forwarder"] = DueForwarder(
            url, token, os.environ.get("KPCA_COURSE_ID", "").strip() or None)
    web_app.add_handlers(".*$", [(url_path_join(web_app.settings["base_url"], "kpca/due"),
                                  DueRoute)])
