"""The grading kernels' own environment: what the course offers students, and nothing else.

``make venv`` builds it next to the grader's venv (``.venv`` -> ``.venv-kernel``) with
``python -m kit.kernelenv --build``: a venv of the same Python, without pip, holding
:data:`PACKAGES` and what they need (from PyPI, at the versions the grader's venv has, so a
case input pickled by the grader reads back the same in the kernel), matplotlib's font list,
and the import hook of :mod:`kit.sandbox.offered`. The ``kpca-sandbox`` kernel (kit/sandbox/wrapper.py) runs
this environment's Python; the only grading code in it is ``kpca_probe``, bound in read-only.
scikit-learn, ``kpca_ref``, ``kit``, nbgrader and the test tools are not there, so a graded
notebook cannot reach them however it spells the import.

:func:`refusal` checks, once per grading process, that none of :data:`FORBIDDEN` can be
imported with this environment's Python; grading refuses to run otherwise
(``kit.sandbox.execute.SandboxedExecute``, ``kit.autograde``). ``KPCA_KERNEL_ENV`` points grading at
another environment.
"""

from __future__ import annotations

import argparse
import glob
import hashlib
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from functools import cache
from importlib import metadata
from pathlib import Path

from kit.sandbox import offered

#: What is installed for the kernels (with their dependencies): the offered packages and
#: the kernel itself.
PACKAGES = ("numpy", "scipy", "sympy", "matplotlib", "ipykernel")

#: Must not be importable in a grading kernel: the reference, the grader, the test tools.
FORBIDDEN = ("sklearn", "kpca_ref", "kit", "nbgrader", "pytest", "hypothesis", "nbclient")

#: Written into the environment once it is complete: what it was built from.
STAMP = ".kpca-kernel-env"
HOOK = "kpca_offered"


def env_dir(environ=None) -> Path:
    """The kernel environment: ``KPCA_KERNEL_ENV`` (of ``environ``, default this process's
    environment), else ``<grader's venv>-kernel``."""
    given = (os.environ if environ is None else environ).get("KPCA_KERNEL_ENV")
    if given:
        return Path(given).absolute()
    prefix = Path(sys.prefix).absolute()
    return prefix.with_name(prefix.name + "-kernel")


def python_of(env: Path) -> Path:
    """The environment's Python (a venv's ``bin/python``)."""
    return env / "bin" / "python"


def font_cache_dir(env: Path) -> Path:
    """matplotlib's font list, built once for the kernels of ``env``."""
    return env / "share" / "kpca-sandbox" / "matplotlib"


def other_site_dirs() -> list[str]:
    """Package folders of the machine's other Pythons, hidden inside the sandbox.

    The sandbox binds ``/usr`` and the base Python's installation read-only (the kernel
    needs their standard library); their ``site-packages``/``dist-packages`` folders may hold
    anything (pytest, scikit-learn), which a notebook could put on ``sys.path`` by hand, so
    each gets an empty read-only folder over it.
    """
    base = {"base": sys.base_prefix, "platbase": sys.base_exec_prefix}
    found = {sysconfig.get_path(key, vars=base) for key in ("purelib", "platlib")}
    for pattern in ("/usr/lib/python3*/*-packages", "/usr/local/lib/python3*/*-packages"):
        found.update(glob.glob(pattern))
    return sorted({os.path.realpath(d) for d in found if os.path.isdir(d)})


def _pins() -> list[str]:
    """``name==version`` of :data:`PACKAGES` as the grader's venv has them."""
    return [f"{name}=={metadata.version(name)}" for name in PACKAGES]


def fingerprint() -> str:
    """What the environment is built from: the pins and the hook's source."""
    hook = Path(offered.__file__).read_bytes()
    return json.dumps({"python": sys.version.split()[0], "pins": _pins(),
                       "hook": hashlib.sha256(hook).hexdigest()[:16]})


def is_current(env: Path) -> bool:
    """Whether ``env`` was built, completely, from what :func:`fingerprint` says."""
    stamp = env / STAMP
    return stamp.is_file() and stamp.read_text() == fingerprint()


def _site_packages(env: Path) -> Path:
    out = subprocess.run([str(python_of(env)), "-I", "-c",
                          "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                         check=True, capture_output=True, text=True)
    return Path(out.stdout.strip())


def build(env: Path, quiet: bool = True) -> Path:
    """Create (or recreate) the kernel environment at ``env``; returns it."""
    if env.exists():
        shutil.rmtree(env)
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(env)], check=True)
    pip = [sys.executable, "-m", "pip", "--python", str(python_of(env)), "install",
           *(["--quiet"] if quiet else []), *_pins()]
    subprocess.run(pip, check=True)
    site = _site_packages(env)
    shutil.copyfile(offered.__file__, site / f"{HOOK}.py")
    (site / f"{HOOK}.pth").write_text(f"import {HOOK}; {HOOK}.install()\n")
    fonts = font_cache_dir(env)
    fonts.mkdir(parents=True, exist_ok=True)
    subprocess.run([str(python_of(env)), "-I", "-c", "import matplotlib.font_manager"],
                   check=True, env=dict(os.environ, MPLCONFIGDIR=str(fonts)))
    (env / STAMP).write_text(fingerprint())
    return env


#: Run by the kernel environment's Python: which forbidden modules import, which needed
#: ones do not, and whether a missing module gets the message naming the offered packages.
_CHECK = r"""
import importlib, importlib.util, json, sys
forbidden, needed = json.loads(sys.argv[1]), json.loads(sys.argv[2])
found, missing, hooked = [], [], False
for name in forbidden:
    try:
        importlib.import_module(name)
        found.append(name)
    except ImportError:
        pass
for name in needed:  # found, not imported (that takes seconds); kpca_probe is imported
    try:
        if name == "kpca_probe":
            importlib.import_module(name)
        elif importlib.util.find_spec(name) is None:
            missing.append(name)
    except Exception as exc:
        missing.append(f"{name} ({type(exc).__name__})")
try:
    import kpca_no_such_module
except ImportError as exc:
    hooked = "grader offers" in str(exc)
print(json.dumps({"found": found, "missing": missing, "hooked": hooked}))
"""


def check(env: Path, probe: Path | None) -> str:
    """Empty string when ``env`` is fit for grading kernels, else why it is not.

    The check runs the environment's Python in an empty folder with a clean environment
    and only ``probe`` (the ``kpca_probe`` package the sandbox binds in) on its path: what a
    kernel sees, and more, since the sandbox hides the rest of the machine.
    """
    python = python_of(env)
    if not python.exists():
        return f"no kernel environment at {env}: run `make venv`"
    with tempfile.TemporaryDirectory(prefix="kpca-kernel-check-") as tmp:
        path = Path(tmp) / "lib"
        path.mkdir()
        if probe is not None:
            (path / "kpca_probe").symlink_to(probe, target_is_directory=True)
        env_vars = {"PATH": "/usr/bin:/bin", "HOME": tmp, "PYTHONPATH": str(path),
                    "MPLBACKEND": "Agg"}
        # matplotlib_inline (ipykernel's): the backend graded kernels draw figures with
        needed = [*offered.OFFERED, "ipykernel", "matplotlib_inline"]
        needed += ["kpca_probe"] if probe else []
        done = subprocess.run([str(python), "-s", "-c", _CHECK, json.dumps(FORBIDDEN),
                               json.dumps(needed)], cwd=tmp, env=env_vars, capture_output=True,
                              text=True, timeout=300, check=False)
    if done.returncode != 0:
        return f"the kernel environment {env} does not run ({done.stderr.strip()[-300:]})"
    result = json.loads(done.stdout.strip().splitlines()[-1])
    if result["found"]:
        return (f"{', '.join(result['found'])} can be imported in the kernel environment "
                f"{env}; grading kernels must not reach them: rebuild it with `make venv`")
    if result["missing"]:
        return (f"the kernel environment {env} lacks {', '.join(result['missing'])}: "
                "rebuild it with `make venv`")
    if not result["hooked"]:
        return (f"the kernel environment {env} lacks the import message ({HOOK}): "
                "rebuild it with `make venv`")
    return ""


@cache
def _refusal(env: str, probe: str | None) -> str:
    return check(Path(env), Path(probe) if probe else None)


def refusal(probe: Path | None = None) -> str:
    """:func:`check` of the configured environment, run once per grading process."""
    return _refusal(str(env_dir()), str(probe) if probe else None)


def _package_dir(name: str) -> Path | None:
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations))).resolve()


def probe_dir(root: Path | None) -> Path | None:
    """The ``kpca_probe`` package the kernels get: the course's own, else the installed one."""
    if root is not None and (root / "kpca_probe" / "__init__.py").is_file():
        return (root / "kpca_probe").resolve()
    return _package_dir("kpca_probe")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m kit.kernelenv",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--build", action="store_true",
                        help="(re)build the environment unless it is current")
    parser.add_argument("--check", action="store_true", help="check it, as grading does")
    args = parser.parse_args(argv)
    env = env_dir()
    if args.build:
        if is_current(env):
            (env / STAMP).touch()  # for make: up to date
        else:
            build(env)
            print(f"built the grading kernels' environment {env}")
    if args.check or args.build:
        why = check(env, probe_dir(None))
        print(f"kernel environment unfit: {why}" if why else f"kernel environment {env}: ok")
        return 1 if why else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
