"""JupyterHub configuration of the demo course (``make hub``; loaded by ``jupyterhub -f``).

Read by JupyterHub, not imported: :mod:`kit.hub` sets the environment it reads
(``KPCA_HUB_*``) and starts ``jupyterhub -f kit/hub_config.py``. What it sets up, after
nbgrader's documented JupyterHub set-up for one course:

- the hub and its proxy on 127.0.0.1 only (``KPCA_HUB_PORT``, default 8000);
- a test-only login: every user of the demo class logs in with one password, new each run
  (``KPCA_HUB_PASSWORD``); only the class's users may log in;
- the groups ``nbgrader-kernel_pca`` (students) and ``formgrade-kernel_pca`` (TA and
  instructor); the formgrade group may reach the course's formgrader, a hub-managed Jupyter
  server (service ``kernel_pca``) running in the course directory;
- the service ``kpca-check`` (:mod:`kit.checks.service`) with its own token and role (and
  each student's overview of the term, ``/services/kpca-check/overview/``, behind the hub's
  OAuth login); the
  students' role, and through ``Spawner.server_token_scopes`` their servers' tokens, may
  access it (a TA's or instructor's token may not); each student's server gets
  ``KPCA_CHECK_URL`` (:func:`check_url`: the service through the proxy, at the hub's public
  URL when it has one, ``KPCA_HUB_PUBLIC_URL``, or where the environment's own
  ``KPCA_CHECK_URL`` says) and ``KPCA_COURSE_ID``, so its Assignments panel shows the
  student's own due dates (:mod:`kit.duepanel`);
- each user's Jupyter server as a local process in ``<hub dir>/home/<user>`` (one OS user
  for the whole demo: a real deployment uses a spawner that separates users, README).
"""

import os
import sys
from pathlib import Path

c = get_config()  # noqa: F821 - JupyterHub injects get_config

HUB = Path(os.environ["KPCA_HUB_DIR"])
COURSE = Path(os.environ["KPCA_HUB_COURSE"])
COURSE_ID = "kernel_pca"
STUDENTS = os.environ["KPCA_HUB_STUDENTS"].split(",")
GRADERS = os.environ["KPCA_HUB_GRADERS"].split(",")
PORT = int(os.environ.get("KPCA_HUB_PORT", "8000"))
PORTS = [int(p) for p in os.environ["KPCA_HUB_PORTS"].split(",")]  # hub api, proxy api, 2 services
BIN = Path(sys.executable).parent
#: Jupyter refuses to run as root without it (containers, CI); never needed as a plain user
ROOT_ARGS = ["--allow-root"] if os.geteuid() == 0 else []

c.JupyterHub.ip = "127.0.0.1"
c.JupyterHub.port = PORT
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.hub_port = PORTS[0]
c.ConfigurableHTTPProxy.api_url = f"http://127.0.0.1:{PORTS[1]}"
c.ConfigurableHTTPProxy.command = ["configurable-http-proxy"]  # Debian's, NODE_PATH set
c.JupyterHub.db_url = f"sqlite:///{HUB / 'jupyterhub.sqlite'}"
c.JupyterHub.cookie_secret_file = str(HUB / "jupyterhub_cookie_secret")
c.JupyterHub.pid_file = str(HUB / "jupyterhub.pid")

c.JupyterHub.authenticator_class = "shared-password"  # test-only: one password per run
c.SharedPasswordAuthenticator.user_password = os.environ["KPCA_HUB_PASSWORD"]
c.Authenticator.allowed_users = set(STUDENTS + GRADERS)

c.JupyterHub.spawner_class = "simple"  # SimpleLocalProcessSpawner: demo and tests only
c.SimpleLocalProcessSpawner.home_dir_template = str(HUB / "home" / "{username}")
c.Spawner.cmd = [str(BIN / "jupyterhub-singleuser")]
c.Spawner.default_url = "/lab"
c.Spawner.args = ROOT_ARGS
c.Spawner.start_timeout = 120  # a loaded machine starts a Jupyter server in 20-40 s
c.Spawner.http_timeout = 120
#: Jupyter's own search paths, passed on when set (a hub run from another environment)
PASSED = {k: os.environ[k] for k in ("JUPYTER_CONFIG_PATH", "JUPYTER_PATH") if k in os.environ}
c.Spawner.env_keep = ["JUPYTERHUB_SINGLEUSER_APP", "PATH", "LANG", *PASSED]
if os.environ.get("KPCA_HUB_PUBLIC_URL"):  # the address students use (TLS: https://...)
    c.JupyterHub.public_url = os.environ["KPCA_HUB_PUBLIC_URL"]


def check_url(spawner=None) -> str:
    """Where a student's server reaches the check service (its ``KPCA_CHECK_URL``): the
    hub's environment's ``KPCA_CHECK_URL`` when set (e.g. the proxy's address inside a
    cluster), else the service under the hub's public URL (``JupyterHub.public_url``), else
    under the address the proxy listens on (``bind_url``, or ``ip``, ``port`` and
    ``base_url``). Read when a server starts, so a public URL set below counts too."""
    setting = os.environ.get("KPCA_CHECK_URL", "").strip()
    if setting:
        return setting.rstrip("/") + "/"
    hub = c.JupyterHub
    base = hub.get("public_url") or hub.get("bind_url") or (
        f"http://{hub.get('ip') or '127.0.0.1'}:{hub.get('port') or 8000}"
        f"{hub.get('base_url') or '/'}")
    return base.rstrip("/") + "/services/kpca-check/"


c.Spawner.environment = {
    "KPCA_CHECK_URL": check_url,
    # the course whose rows of the Assignments panel show the student's due date
    # (kit.duepanel: the student's server asks the check service with its own token)
    "KPCA_COURSE_ID": COURSE_ID,
    "MPLBACKEND": "module://matplotlib_inline.backend_inline",
}
#: the token of a student's server (JUPYTERHUB_API_TOKEN, which check() sends) may access
#: the check service; JupyterHub gives each server only the scopes its user holds, so a
#: TA's or instructor's server token never gets it (the defaults of the role 'server' kept)
c.Spawner.server_token_scopes = ["users:activity!user", "access:servers!server",
                                 "access:services!service=kpca-check"]

c.JupyterHub.load_groups = {
    f"nbgrader-{COURSE_ID}": {"users": STUDENTS},
    f"formgrade-{COURSE_ID}": {"users": GRADERS},
}
c.JupyterHub.load_roles = [
    {"name": f"formgrade-{COURSE_ID}", "groups": [f"formgrade-{COURSE_ID}"],
     "scopes": [f"access:services!service={COURSE_ID}"]},
    {"name": f"nbgrader-{COURSE_ID}", "groups": [f"nbgrader-{COURSE_ID}"],
     "scopes": ["access:services!service=kpca-check"]},
    # the check service resolves tokens through /hub/api/user; it reads names, and who is in
    # the students' group (practice keeps clear of every classmate's key, not only of those
    # who checked)
    {"name": "kpca-check", "services": ["kpca-check"],
     "scopes": ["read:users:name", f"read:groups!group=nbgrader-{COURSE_ID}"]},
]
c.JupyterHub.services = [
    {   # formgrader for the TA and instructor, in the course directory (nbgrader's set-up)
        "name": COURSE_ID,
        "url": f"http://127.0.0.1:{PORTS[2]}",
        "command": [str(BIN / "jupyterhub-singleuser"), "--ServerApp.root_dir=" + str(COURSE),
                    *ROOT_ARGS],
        "cwd": str(COURSE),
        "environment": {"JUPYTERHUB_DEFAULT_URL": "/lab", **PASSED,
                        "KPCA_EXCHANGE": os.environ["KPCA_EXCHANGE"],
                        "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}"},
        "oauth_no_confirm": True,
    },
    {   # instant checks of exact answers (kit/checks)
        "name": "kpca-check",
        "url": f"http://127.0.0.1:{PORTS[3]}",
        "command": [sys.executable, "-m", "kit.checks.service"],
        # KPCA_HOMES: where the overview sees that a student fetched a problem set
        # and the exchange, where it sees that her feedback was released
        "environment": {"KPCA_COURSE_DIR": str(COURSE), "KPCA_HOMES": str(HUB / "home" / "{student}"),
                        "KPCA_EXCHANGE": os.environ["KPCA_EXCHANGE"],
                        "PYTHONPATH": os.environ.get("PYTHONPATH", "")},
        # the students' overview (<prefix>overview/) logs in through the hub's OAuth: a
        # student who may access the service is not asked to confirm it
        "oauth_no_confirm": True,
    },
]
