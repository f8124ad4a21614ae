"""``kit/hub_config.py`` as JupyterHub loads it: where students' servers find the check
service, and which tokens the hub lets reach it."""

from __future__ import annotations

import shutil

import pytest
from traitlets.config.loader import PyFileConfigLoader

from kit.course import REPO_ROOT

SCOPE = "access:services!service=kpca-check"


def load(tmp_path, monkeypatch, env: dict | None = None, extra: str = ""):
    """The hub's config object, read from (a copy of) kit/hub_config.py with ``extra``
    lines appended, in the environment kit.hub gives it plus ``env``."""
    for name in ("KPCA_CHECK_URL", "KPCA_HUB_PUBLIC_URL"):
        monkeypatch.delenv(name, raising=False)
    for name, value in {"KPCA_HUB_DIR": str(tmp_path), "KPCA_HUB_COURSE": str(tmp_path),
                        "KPCA_HUB_STUDENTS": "ada,bob", "KPCA_HUB_GRADERS": "ta_tom",
                        "KPCA_HUB_PORT": "8123", "KPCA_HUB_PORTS": "1,2,3,4",
                        "KPCA_HUB_PASSWORD": "x", "KPCA_EXCHANGE": str(tmp_path),
                        **(env or {})}.items():
        monkeypatch.setenv(name, value)
    shutil.copy(REPO_ROOT / "kit" / "hub_config.py", tmp_path / "hub_config.py")
    with open(tmp_path / "hub_config.py", "a") as config:
        config.write(extra)
    return PyFileConfigLoader("hub_config.py", path=str(tmp_path)).load_config()


def check_url(config) -> str:
    url = config.Spawner.environment["KPCA_CHECK_URL"]
    return url(None) if callable(url) else url


@pytest.mark.parametrize(("env", "extra", "expected"), [
    ({}, "", "http://127.0.0.1:8123/services/kpca-check/"),
    ({"KPCA_HUB_PUBLIC_URL": "https://hub.example.edu/"}, "",
     "https://hub.example.edu/services/kpca-check/"),
    ({}, "c.JupyterHub.public_url = 'https://jh.uni.example/course/'\n",  # set below it
     "https://jh.uni.example/course/services/kpca-check/"),
    ({}, "c.JupyterHub.bind_url = 'http://10.0.0.5:8000/'\n",
     "http://10.0.0.5:8000/services/kpca-check/"),
    ({"KPCA_CHECK_URL": "http://proxy-public/services/kpca-check"},  # a setting wins
     "c.JupyterHub.public_url = 'https://jh.uni.example/'\n",
     "http://proxy-public/services/kpca-check/"),
], ids=["demo", "public-url", "public-url-below", "bind-url", "setting"])
def test_the_check_url_follows_the_hubs_public_url_or_a_setting(tmp_path, monkeypatch, env,
                                                                extra, expected):
    assert check_url(load(tmp_path, monkeypatch, env, extra)) == expected


def test_only_the_students_role_and_their_servers_tokens_reach_the_service(tmp_path,
                                                                           monkeypatch):
    config = load(tmp_path, monkeypatch)
    roles = {role["name"]: role for role in config.JupyterHub.load_roles}
    assert SCOPE in roles["nbgrader-kernel_pca"]["scopes"]
    assert roles["nbgrader-kernel_pca"]["groups"] == ["nbgrader-kernel_pca"]
    assert not any(SCOPE in role.get("scopes", []) or "access:services" in role.get("scopes", [])
                   for name, role in roles.items() if name != "nbgrader-kernel_pca")
    # the server token check() sends carries it (the hub drops it for users without it)
    assert SCOPE in config.Spawner.server_token_scopes
    assert {"users:activity!user", "access:servers!server"} <= set(
        config.Spawner.server_token_scopes)


def test_the_check_service_reads_the_students_group_and_no_other(tmp_path, monkeypatch):
    """Practice keeps clear of every classmate's key: the service reads who is in the
    students' group, and no other group (no staff list, no other course's students)."""
    config = load(tmp_path, monkeypatch)
    scopes = {role["name"]: role for role in config.JupyterHub.load_roles}["kpca-check"]["scopes"]
    groups = [s for s in scopes if "groups" in s]
    assert groups == ["read:groups!group=nbgrader-kernel_pca"], scopes
