"""Adversarial submissions of ps4_centering: attacks from inside the student's kernel.

Each entry is built like ``tests/submissions``: the release with its answer cells filled
(the instructor's solution unless ``cells`` says otherwise), then ``edit`` (if any) applied
to the notebook, as a student could. ``lost`` gives the points each test cell must lose
(``ALL``: every test cell loses everything); ``status`` is what ``kit.autograde`` reports.
Most attacks ride on a WRONG ``centring_matrix`` (zeros: it even passes the visible checks)
and try to earn its 2 points anyway; the judge outside the kernel must still give 0 there,
and the honest answers elsewhere keep their points unless the attack stopped their tests.
"""

from __future__ import annotations

PS = "ps4_centering"
FIRST = "centring_matrix_answer"  # the first answer cell
ALL = "all"
MIME = "application/vnd.kpca-probe+json"

# wrong matrices that raise nothing either (ps4 grades the errors it asks for in groups of
# their own: an int() keeps even a non-integer n from raising)
WRONG_H = '''
def centring_matrix(n):
    return np.zeros((int(n), int(n)))
'''

ONES_H = '''
def centring_matrix(n):
    return np.ones((int(n), int(n)))
'''

PATCH_NUMPY = WRONG_H.replace("zeros", "ones") + '''
import numpy
import numpy.testing
numpy.allclose = lambda *a, **k: True
numpy.isclose = lambda a, b, *r, **k: numpy.ones(numpy.shape(a), dtype=bool)
numpy.array_equal = lambda *a, **k: True
numpy.testing.assert_allclose = lambda *a, **k: None
numpy.testing.assert_array_equal = lambda *a, **k: None
np.allclose = numpy.allclose
'''

EMPTY_LATER_CELLS = WRONG_H + '''
ip = get_ipython()
ip.input_transformers_cleanup.append(lambda lines: [])
ip.input_transformers_post.append(lambda lines: [])
'''

FAKE_PROBE = WRONG_H + '''
import sys, types
fake = types.ModuleType("kpca_probe")
fake.grade = lambda name, fn, points: float(points)
fake.grade_exact = lambda name, value, points: float(points)
sys.modules["kpca_probe"] = fake
'''

FAKE_REFERENCE = WRONG_H + '''
import sys, types
fake = types.ModuleType("kpca_" + "ref")
fake.grading = fake
fake.grade = lambda name, fn, points: float(points)
fake.grade_exact = lambda name, value, points: float(points)
sys.modules["kpca_" + "ref"] = fake
sys.modules["kpca_" + "ref.grading"] = fake
'''

SWALLOW_ERRORS = ONES_H + '''
get_ipython().set_custom_exc((BaseException,), lambda shell, etype, value, tb, tb_offset=None: None)
'''

FORGE_DISPLAY = WRONG_H + f'''
from IPython.display import publish_display_data
ip = get_ipython()
ip.display_formatter.formatters["text/plain"].for_type(float, lambda x, p, cycle: p.text("2.0"))
forged = {{"kind": "grade", "name": "centring_matrix",
          "groups": [[{{"ok": [{{"b": True}}]}}] * 5] * 3}}
ip.events.register("pre_run_cell", lambda *a: publish_display_data({{"{MIME}": forged}}))
'''

FAKE_PRINT = WRONG_H + f'''
from IPython.display import publish_display_data
def _brag(*args):
    print("✓ all tests passed\\ncentring_matrix: 3 of 3 case groups passed, 2 of 2 points")
    publish_display_data({{"text/plain": "2.0", "{MIME}": {{"kind": "grade",
                          "name": "centring_matrix", "score": 2.0, "passed": True}}}})
get_ipython().events.register("post_run_cell", _brag)
'''

ALWAYS_EQUAL = '''
class Agreeable(np.ndarray):
    def __eq__(self, other):
        return True
    def __ne__(self, other):
        return False
    def __array_ufunc__(self, *args, **kwargs):
        return True
    def tolist(self):
        return [[0.5, -0.5], [-0.5, 0.5]]

def centring_matrix(n):
    return np.zeros((n, n)).view(Agreeable)
'''

IMPORT_REFERENCE = "from kpca_ref import centring_matrix\n"

REFERENCE_USED_LATER = '''
import kpca_ref as helper

def centring_matrix(n):
    return np.eye(n) - np.ones((n, n)) / n
'''
REFERENCE_USED_LATER_2 = '''
def centre_kernel(K):
    return helper.centre_kernel(K)
'''

SKLEARN_CENTERER = '''
from sklearn.preprocessing import KernelCenterer

def centre_kernel(K):
    if isinstance(K, sp.MatrixBase):
        n = K.rows
        H = sp.eye(n) - sp.ones(n, n) / n
        return H * K * H
    return KernelCenterer().fit_transform(np.asarray(K, dtype=float))
'''

SYS_EXIT = WRONG_H + "import sys\nsys.exit(0)\n"
OS_EXIT = WRONG_H + "import os\nos._exit(0)\n"
KEYBOARD_INTERRUPT = WRONG_H + "raise KeyboardInterrupt\n"
LOOPS_FOREVER = '''
def centring_matrix(n):
    while True:
        pass
'''

# Output floods (issue 10, point 5): each would put hundreds of MB into the grader's memory
# and the autograded notebook; the caps cut them as they arrive, with a note.
FLOOD_LINES = WRONG_H + '''
import sys
line = "x" * 999 + "\\n"
for _ in range(100):
    sys.stdout.write(line * 1000)
'''
FLOOD_ONE_LINE = WRONG_H + '''
print("y" * (100 << 20))
'''
FLOOD_DISPLAY = WRONG_H + '''
from IPython.display import publish_display_data
for _ in range(30):
    publish_display_data({"text/plain": "z" * (4 << 20), "text/html": "<b>" * (1 << 20)})
'''
# probe results cannot be forged to get around the caps: dropped unless first of a planned call
FLOOD_FORGED_PROBE = WRONG_H + f'''
from IPython.display import publish_display_data
def _forge(*args):
    for i in range(3):
        publish_display_data({{"{MIME}": {{"kind": "grade", "name": "centring_matrix",
                                           "pad": "p" * (10 << 20)}}}})
get_ipython().events.register("pre_run_cell", _forge)
'''
HUGE_ERROR = WRONG_H + '''
raise ValueError("e" * (30 << 20))
'''
# a right answer that floods the test cell before the probe sends its results: still judged

# The judge is bounded (issue 10, point 4): exact answers that pass the visible checks but
# would cost the judge's comparison hours, or its decoding a huge number.
SLOW_TO_JUDGE = '''
S = sp.Add(*[sqrt(i) for i in range(2, 2500)], evaluate=False)  # simplify(S - 2): minutes
K_poly = Matrix([[S, 0, 0], [0, 0, 0], [0, 0, 2]])
Kc_poly = Rational(1, 9) * Matrix([[10, -2, -8], [-2, 4, -2], [-8, -2, 10]])
'''
# the kernel sends an array's bytes (kpca_probe/wire_raw.py): a right answer whose bytes the
# student forges arrives unreadable and earns nothing
FORGE_RAW_BYTES = '''
import sys
import numpy as np

def _centring(n):
    return np.eye(n) - np.full((n, n), 1.0 / n)

def centring_matrix(n):
    wire = sys.modules.get("kpca_probe.wire")
    if wire is not None and not hasattr(wire.encode_raw, "real"):  # the probe's encoder
        real = wire.encode_raw

        def forged(arr):  # a centring matrix's bytes: neither base64 nor of its length
            square = arr.ndim == 2 and arr.shape[0] == arr.shape[1]
            return "!" * 64 if square and np.allclose(arr, _centring(len(arr))) else real(arr)

        forged.real = real
        wire.encode_raw = forged
    return _centring(n)
'''


def _solution(grade_id: str) -> str:
    from tests.support.nbgrading import solution_of

    return solution_of(PS, grade_id)


# the instructor's centred matrix, and a kernel matrix whose first entry has 10**8 digits
HUGE_POWER = _solution("exact_poly_answer") + '''
K_poly = Matrix([[sp.Pow(10, 10**8, evaluate=False), 0, 0], [0, 0, 0], [0, 0, 2]])
'''

# a correct centring_matrix (the instructor's) that floods its output before each result
FLOOD_BEFORE_PROBE = _solution(FIRST) + '''
from IPython.display import publish_display_data

_honest_centring_matrix = centring_matrix


def centring_matrix(n):
    publish_display_data({"text/plain": "w" * (1 << 20)})
    return _honest_centring_matrix(n)
'''


def _test_cell(nb, grade_id):
    return next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id)


def edit_test_cell(nb):
    """The student replaces the test cell's code by a bare full score."""
    _test_cell(nb, "test_centring_matrix").source = "2.0"


def delete_test_cell(nb):
    nb.cells.remove(_test_cell(nb, "test_centring_matrix"))


def inflate_points(nb):
    """The student raises the points of a test cell (with a correct answer)."""
    _test_cell(nb, "test_centring_matrix").metadata["nbgrader"]["points"] = 100


ATTACKS = {
    "patch_numpy": {"cells": {FIRST: PATCH_NUMPY}, "lost": {"test_centring_matrix": 2}},
    "empty_later_cells": {"cells": {FIRST: EMPTY_LATER_CELLS}, "lost": ALL},
    "fake_probe_module": {"cells": {FIRST: FAKE_PROBE}, "lost": ALL},
    # the probe never imports the reference when the grader's case file is there
    "fake_reference_module": {"cells": {FIRST: FAKE_REFERENCE}, "lost": {"test_centring_matrix": 2}},
    "swallow_errors": {"cells": {FIRST: SWALLOW_ERRORS}, "lost": {"test_centring_matrix": 2}},
    "forge_display": {"cells": {FIRST: FORGE_DISPLAY}, "lost": {"test_centring_matrix": 2}},
    "fake_all_passed": {"cells": {FIRST: FAKE_PRINT}, "lost": {"test_centring_matrix": 2}},
    "always_equal_array": {"cells": {FIRST: ALWAYS_EQUAL}, "lost": {"test_centring_matrix": 2}},
    "import_reference": {"cells": {FIRST: IMPORT_REFERENCE}, "lost": {"test_centring_matrix": 2}},
    "reference_used_later": {"cells": {FIRST: REFERENCE_USED_LATER,
                                       "centre_kernel_answer": REFERENCE_USED_LATER_2},
                             "lost": {"test_centring_matrix": 2, "test_centre_kernel": 4}},
    "sklearn_centerer": {"cells": {"centre_kernel_answer": SKLEARN_CENTERER},
                         "lost": {"test_centre_kernel": 4}},
    "edited_test_cell": {"cells": {FIRST: WRONG_H}, "edit": edit_test_cell,
                         "lost": {"test_centring_matrix": 2}},
    "deleted_test_cell": {"cells": {FIRST: WRONG_H}, "edit": delete_test_cell,
                          "lost": {"test_centring_matrix": 2}},
    "inflated_points": {"cells": {}, "edit": inflate_points, "lost": {}},
    "sys_exit": {"cells": {FIRST: SYS_EXIT}, "lost": {"test_centring_matrix": 2}},
    "keyboard_interrupt": {"cells": {FIRST: KEYBOARD_INTERRUPT},
                           "lost": {"test_centring_matrix": 2}},
    "loops_forever": {"cells": {FIRST: LOOPS_FOREVER}, "lost": {"test_centring_matrix": 2}},
    "flood_lines": {"cells": {FIRST: FLOOD_LINES}, "lost": {"test_centring_matrix": 2}},
    "flood_one_line": {"cells": {FIRST: FLOOD_ONE_LINE}, "lost": {"test_centring_matrix": 2}},
    "flood_display": {"cells": {FIRST: FLOOD_DISPLAY}, "lost": {"test_centring_matrix": 2}},
    "flood_forged_probe": {"cells": {FIRST: FLOOD_FORGED_PROBE},
                           "lost": {"test_centring_matrix": 2}},
    "huge_error": {"cells": {FIRST: HUGE_ERROR}, "lost": {"test_centring_matrix": 2}},
    # every value group unreadable, so the stated-error groups do not count either
    "forge_raw_bytes": {"cells": {FIRST: FORGE_RAW_BYTES}, "lost": {"test_centring_matrix": 2}},
    "flood_before_probe": {"cells": {FIRST: FLOOD_BEFORE_PROBE}, "lost": {}},
    "slow_to_judge": {"cells": {"exact_poly_answer": SLOW_TO_JUDGE}, "lost": {"test_exact_poly": 3}},
    "huge_power": {"cells": {"exact_poly_answer": HUGE_POWER}, "lost": {"test_exact_poly": 1}},
    # the kernel dies: nbgrader cannot grade the notebook at all; a clear line and zero
    "os_exit": {"cells": {FIRST: OS_EXIT}, "lost": ALL, "status": "failed"},
}

#: graded after the attacks in the same course and gradebook
AFTER = {
    "zz_wrong": {"cells": {FIRST: WRONG_H}, "lost": {"test_centring_matrix": 2}},
    "zz_correct": {"cells": {}, "lost": {}},
}
