"""Build and install the panel's due dates (:mod:`kit.duepanel.__main__` is the command)."""

from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path

from kit.duepanel import EXTENSION, SERVER_CONFIG

__all__ = ["HERE", "LAB", "SERVER_CONFIGS", "build", "built_name", "install"]

HERE = Path(__file__).resolve().parent
LAB = HERE / "labextension"
#: the kit's Jupyter server extensions' config files: the due route's, and formgrader's pages
#: rendered by the feedback's exporter (:mod:`kit.handback.formgrader`)
SERVER_CONFIGS = (HERE / SERVER_CONFIG, HERE.parent / "handback" / "kit.handback.formgrader.json")


def built_name(source: bytes) -> str:
    """``remoteEntry.<first 16 hex digits of its sha256>.js``."""
    return f"remoteEntry.{hashlib.sha256(source).hexdigest()[:16]}.js"


def build(lab: Path = LAB) -> Path:
    """Write ``static/remoteEntry.<hash>.js`` from ``src/remoteEntry.js``, drop older
    builds and point ``package.json``'s ``jupyterlab._build.load`` at it."""
    source = (lab / "src" / "remoteEntry.js").read_bytes()
    static = lab / "static"
    static.mkdir(exist_ok=True)
    name = built_name(source)
    for old in static.glob("remoteEntry.*.js"):
        if old.name != name:
            old.unlink()
    (static / name).write_bytes(source)
    package = json.loads((lab / "package.json").read_text())
    package["jupyterlab"]["_build"]["load"] = f"static/{name}"
    (lab / "package.json").write_text(json.dumps(package, indent=2) + "\n")
    return static / name


def _place(source: Path, dest: Path) -> Path:
    """``dest`` made a copy of ``source``, replaced in one step (a server reading it meanwhile
    sees the old file or the new, never a part), and left alone when already equal."""
    data = source.read_bytes()
    if not (dest.is_file() and dest.read_bytes() == data):
        dest.parent.mkdir(parents=True, exist_ok=True)
        part = dest.with_name(f".{dest.name}.part")
        part.write_bytes(data)
        os.replace(part, dest)
    return dest


def install(prefix: Path | str = sys.prefix, lab: Path = LAB) -> list[Path]:
    """Copy the lab extension and the server extensions' configs under ``prefix`` (files
    already there and equal are left as they are; an older build is removed after the new
    one is in place); returns the files it placed. Refuses (``ValueError``) a lab extension
    whose build is missing."""
    package = json.loads((lab / "package.json").read_text())
    load = lab / package["jupyterlab"]["_build"]["load"]
    if not load.is_file():
        raise ValueError(f"the lab extension's build is missing: got no {load.name} "
                         "(python -m kit.duepanel --build)")
    prefix = Path(prefix)
    target = prefix / "share" / "jupyter" / "labextensions" / EXTENSION
    config = prefix / "etc" / "jupyter" / "jupyter_server_config.d"
    # the build first, then the package.json that names it, then the server's config
    placed = [_place(load, target / "static" / load.name),
              _place(lab / "install.json", target / "install.json"),
              _place(lab / "package.json", target / "package.json"),
              *(_place(path, config / path.name) for path in SERVER_CONFIGS)]
    for old in (target / "static").iterdir():
        if old.name != load.name:
            old.unlink()
    return placed
