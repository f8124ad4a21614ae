"""Build and install the panel's due dates (:mod:`kit.duepanel.__main__` is the command)."""

from __future__ import annotations

import hashlib
import json
import shutil
import sys
from pathlib import Path

from kit.duepanel import EXTENSION, SERVER_CONFIG

__all__ = ["HERE", "LAB", "build", "built_name", "install"]

HERE = Path(__file__).resolve().parent
LAB = HERE / "labextension"


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


def install(prefix: Path | str = sys.prefix, lab: Path = LAB) -> list[Path]:
    """Copy the lab extension and the server extension's config under ``prefix``; returns
    what it wrote. Refuses (``ValueError``) a lab extension whose build is missing."""
    package = json.loads((lab / "package.json").read_text())
    load = lab / package["jupyterlab"]["_build"]["load"]
    if not load.is_file():
        raise ValueError(f"the lab extension's build is missing: got no {load.name} "
                         "(python -m kit.duepanel --build)")
    prefix = Path(prefix)
    target = prefix / "share" / "jupyter" / "labextensions" / EXTENSION
    if target.exists():
        shutil.rmtree(target)
    (target / "static").mkdir(parents=True)
    written = [shutil.copy2(lab / "package.json", target / "package.json"),
               shutil.copy2(lab / "install.json", target / "install.json"),
               shutil.copy2(load, target / "static" / load.name)]
    config = prefix / "etc" / "jupyter" / "jupyter_server_config.d"
    config.mkdir(parents=True, exist_ok=True)
    written.append(shutil.copy2(HERE / SERVER_CONFIG, config / SERVER_CONFIG))
    return [Path(p) for p in written]


