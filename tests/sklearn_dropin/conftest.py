"""The ``global_random_seed`` fixture of scikit-learn's own test suite, for its test modules
run here: the seed 42, or those named by ``SKLEARN_TESTS_GLOBAL_RANDOM_SEED`` ("all", "3",
"0-9"), as scikit-learn's ``conftest.py`` reads it."""

import os


def _seeds():
    value = os.environ.get("SKLEARN_TESTS_GLOBAL_RANDOM_SEED")
    if value is None:
        return [42]
    if value == "all":
        return list(range(100))
    start, _, stop = value.partition("-")
    seeds = list(range(int(start), int(stop or start) + 1))
    if min(seeds) < 0 or max(seeds) > 99:
        raise ValueError("SKLEARN_TESTS_GLOBAL_RANDOM_SEED must name seeds in [0, 99] "
                         f"(or 'all'), got {value!r}")
    return seeds


def pytest_generate_tests(metafunc):
    if "global_random_seed" in metafunc.fixturenames:
        metafunc.parametrize("global_random_seed", _seeds())
