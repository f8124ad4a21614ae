"""The panel's due dates are installed with the kit, pre-built, with no Node at install time.

- the committed build is ``src/remoteEntry.js`` under its hash's name, and ``package.json``
  loads it (an edit of the source without ``python -m kit.duepanel --build`` fails here);
- it is the federated extension JupyterLab 4 loads: a script registering
  ``window._JUPYTERLAB["kpca-due-panel"]`` with ``init`` and ``get("./extension")``;
- ``python -m kit.duepanel --install`` places it and the server extension's config under a
  prefix, and this environment (``make venv``) has both enabled, as Jupyter lists them.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from kit.duepanel import EXTENSION, SERVER_CONFIG
from kit.duepanel.install import LAB, SERVER_CONFIGS, built_name, install
from kit.handback.formgrader import SERVER_CONFIG as FORMGRADER_CONFIG

BIN = Path(sys.executable).parent


def _jupyter(*args: str) -> str:
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}", "NO_COLOR": "1"}
    done = subprocess.run([str(BIN / "jupyter"), *args], capture_output=True, text=True,
                          env=env, timeout=120, check=False)
    return " ".join((done.stdout + done.stderr).replace("\x1b[32m", "").replace(
        "\x1b[0m", "").split())


def test_the_committed_build_is_the_source_under_its_hash():
    package = json.loads((LAB / "package.json").read_text())
    source = (LAB / "src" / "remoteEntry.js").read_bytes()
    assert package["name"] == EXTENSION
    assert package["jupyterlab"]["_build"] == {"load": f"static/{built_name(source)}",
                                               "extension": "./extension"}
    assert [p.name for p in (LAB / "static").iterdir()] == [built_name(source)]
    assert (LAB / "static" / built_name(source)).read_bytes() == source
    text = source.decode()
    assert f"var NAME = '{EXTENSION}';" in text and "window._JUPYTERLAB[NAME] = container" in text
    assert "innerHTML" not in text and "insertAdjacentHTML" not in text  # text only


def test_install_places_both_extensions_under_a_prefix(tmp_path):
    written = install(tmp_path)
    target = tmp_path / "share" / "jupyter" / "labextensions" / EXTENSION
    load = json.loads((target / "package.json").read_text())["jupyterlab"]["_build"]["load"]
    assert (target / load).read_bytes() == (LAB / load).read_bytes()
    config = tmp_path / "etc" / "jupyter" / "jupyter_server_config.d" / SERVER_CONFIG
    assert json.loads(config.read_text()) == {
        "ServerApp": {"jpserver_extensions": {"kit.duepanel": True}}}
    formgrader = config.with_name(FORMGRADER_CONFIG)
    assert json.loads(formgrader.read_text()) == {
        "ServerApp": {"jpserver_extensions": {"kit.handback.formgrader": True}}}
    assert set(written) == {target / "package.json", target / "install.json", target / load,
                            config, formgrader}
    (target / "static" / "remoteEntry.old.js").write_text("stale")
    inode = (target / load).stat().st_ino
    install(tmp_path)  # again: the old build goes, the current one is left in place
    assert sorted(p.name for p in (target / "static").iterdir()) == [Path(load).name]
    assert (target / load).stat().st_ino == inode  # (a lab page loading it meanwhile is safe)
    config.write_text("{}")
    install(tmp_path)  # a changed file is put back
    assert json.loads(config.read_text())["ServerApp"]["jpserver_extensions"]["kit.duepanel"]


def test_install_refuses_a_missing_build(tmp_path):
    lab = tmp_path / "labextension"
    lab.mkdir()
    (lab / "package.json").write_text(json.dumps(
        {"jupyterlab": {"_build": {"load": "static/remoteEntry.0.js"}}}))
    with pytest.raises(ValueError, match="build is missing: got no remoteEntry.0.js"):
        install(tmp_path / "prefix", lab=lab)


def test_this_environment_has_both_enabled():
    """What ``make venv`` leaves (``python -m kit.duepanel --install``): JupyterLab lists the
    extension enabled and OK, the server lists its extension enabled, and the installed
    build is this checkout's (else: python -m kit.duepanel --install)."""
    listed = _jupyter("labextension", "list")
    assert f"{EXTENSION} v0.1.0 enabled OK (python, kernel-pca-course-kit)" in listed, listed
    extensions = _jupyter("server", "extension", "list")
    assert "kit.duepanel enabled - Validating kit.duepanel... kit.duepanel" in extensions
    assert "kit.handback.formgrader enabled - Validating kit.handback.formgrader..." in extensions
    installed = Path(sys.prefix) / "share" / "jupyter" / "labextensions" / EXTENSION
    load = json.loads((LAB / "package.json").read_text())["jupyterlab"]["_build"]["load"]
    assert (installed / load).is_file(), "stale install: python -m kit.duepanel --install"
    for config in SERVER_CONFIGS:
        assert config.read_bytes() == (
            Path(sys.prefix) / "etc" / "jupyter" / "jupyter_server_config.d" / config.name
        ).read_bytes(), "stale install: python -m kit.duepanel --install"
