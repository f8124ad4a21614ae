"""``python -m kit.sandbox``: start one grading kernel in the sandbox, or set the sandbox up.

- ``-f CONNECTION_FILE``: what the ``kpca-sandbox`` kernelspec runs for each grading kernel
  (:func:`kit.sandbox.wrapper.main`);
- ``--install``: write the kernelspec into the venv (:func:`kit.sandbox.kernelspec.install_kernelspec`,
  run by ``make venv``);
- ``--check``: whether sandboxed kernels can start here.
"""

import sys

from kit.sandbox.wrapper import REFUSED, main, unavailable

if __name__ == "__main__":
    if sys.argv[1:] == ["--install"]:
        from kit.sandbox.kernelspec import install_kernelspec

        print(f"installed kernelspec {install_kernelspec()}")
        sys.exit(0)
    if sys.argv[1:] == ["--check"]:
        why = unavailable()
        print(f"sandbox unavailable: {why}" if why else "sandbox available")
        sys.exit(REFUSED if why else 0)
    sys.exit(main())
