"""Submissions for ps0_high_dimensions: correct ones written differently, and classic mistakes.

Each entry replaces the listed answer cells of the source notebook; the other answer cells
keep the reference solution. ``lost`` gives, per test cell, the points the submission must
lose: a visible check that fails costs the whole cell, otherwise the hidden grading gives
``points * (case groups passed) / (case groups)`` (rounded to 2 decimals), and each exact
answer of a cell earns its own points. ``diagnoses`` ({test cell or exact answer: code})
names the classic mistake the printed lines must carry. By-hand submissions compute from
``N``, so each mistake shows on whatever numbers the submission's student id draws.
"""

# ------------------------------------------------- correct: recursions, loops, integration
LOOPS_BALL = '''
def ball_cube_ratio(m):
    if isinstance(m, bool):
        raise TypeError("m must be an integer")
    if m < 1:
        raise ValueError("m must be at least 1")
    exact = isinstance(m, sp.Basic)
    # V_m = V_(m-2) * 2 pi / m for the unit ball, V_0 = 1 and V_1 = 2
    volume = (Integer(1) if exact else 1.0) if m % 2 == 0 else (Integer(2) if exact else 2.0)
    for k in range(2 + int(m) % 2, int(m) + 1, 2):
        volume = volume * 2 * (pi if exact else math.pi) / k
    return volume / 2 ** int(m) if exact else volume / 2.0 ** int(m)
'''

LOOPS_BALL_EXACT = '''
volume = Integer(1) if N.m % 2 == 0 else Integer(2)
for k in range(2 + int(N.m) % 2, int(N.m) + 1, 2):
    volume = volume * 2 * pi / k
ratio_mine = volume / 2**N.m
corner_mine = sqrt(sum(Integer(1) for _ in range(int(N.m))))
'''

LOOPS_SHELL = '''
def shell_fraction(m, eps):
    if m < 1 or not 0 <= eps <= 1:
        raise ValueError("need m >= 1 and 0 <= eps <= 1")
    inner = 1
    for _ in range(int(m)):
        inner = inner * (1 - eps)
    return 1 - inner
'''

LOOPS_SHELL_EXACT = '''
p, q = N.eps.p, N.eps.q
shell_mine = Rational(q**N.m_shell - (q - p) ** N.m_shell, q**N.m_shell)
'''

LOOPS_INSIDE = '''
def inside_fraction(X):
    X = np.asarray(X, dtype=float)
    if X.ndim != 2:
        raise ValueError("X must be a 2-D array")
    inside = 0
    for row in X:
        if math.sqrt(sum(x * x for x in row)) <= 1.0:
            inside += 1
    p = inside / len(X)
    return [p, math.sqrt(p * (1 - p) / len(X))]
'''

LOOPS_ANGLES = '''
def angles_deg(U, v):
    U, v = np.asarray(U, dtype=float), np.asarray(v, dtype=float)
    if U.ndim != 2 or v.shape != (U.shape[1],):
        raise ValueError("U must be (n, m) and v of length m")
    v_len = math.sqrt(float(v @ v))
    if v_len == 0:
        raise ValueError("v is zero")
    out = []
    for row in U:
        r_len = math.sqrt(float(row @ row))
        if r_len == 0:
            raise ValueError("a row of U is zero")
        c = float(row @ v) / (r_len * v_len)
        out.append(math.degrees(math.acos(max(-1.0, min(1.0, c)))))
    return np.array(out)
'''

LOOPS_CAP = '''
def cap_fraction(m, angle):
    if m < 2 or not 0 <= angle <= 180:
        raise ValueError("need m >= 2 and 0 <= angle <= 180")
    if m == 2:
        return angle / 180
    if angle > 90:
        return 1 - cap_fraction(m, 180 - angle)
    # Simpson's rule on sin^(m-2), in logarithms so that tiny caps keep their digits
    def simpson(upper, steps=4000):
        t = np.linspace(0.0, upper, steps + 1)
        with np.errstate(divide="ignore"):
            y = np.exp((m - 2) * np.log(np.sin(t)))
        h = upper / steps
        return h / 3 * (y[0] + y[-1] + 4 * y[1:-1:2].sum() + 2 * y[2:-1:2].sum())
    return float(simpson(math.radians(angle)) / (2 * simpson(math.pi / 2)))
'''

LOOPS_CAP_EXACT = '''
t = sp.Symbol("t")
cap_mine = (sp.integrate(sp.sin(t) ** (N.m_cap - 2), (t, 0, N.angle * pi / 180))
            / sp.integrate(sp.sin(t) ** (N.m_cap - 2), (t, 0, pi)))
tries_mine = sp.simplify(1 / (2 * cap_mine))
'''

# ------------------------------------------------------------- mistake: Gamma(m/2)
GAMMA_BALL = '''
def ball_cube_ratio(m):
    if m < 1:
        raise ValueError("m must be at least 1")
    if isinstance(m, sp.Basic):
        return sp.simplify(pi ** (m / 2) / (sp.gamma(m / 2) * 2**m))
    return math.pi ** (m / 2) / (math.gamma(m / 2) * 2.0**m)
'''

GAMMA_BALL_EXACT = '''
ratio_mine = sp.simplify(pi ** (N.m / 2) / (sp.gamma(N.m / 2) * 2**N.m))
corner_mine = sqrt(N.m)
'''

# ------------------------------------------------------- mistake: the core, not the shell
CORE_SHELL = '''
def shell_fraction(m, eps):
    if m < 1 or not 0 <= eps <= 1:
        raise ValueError("need m >= 1 and 0 <= eps <= 1")
    return (1 - eps) ** m
'''

CORE_SHELL_EXACT = '''
shell_mine = (1 - N.eps) ** N.m_shell
'''

# ------------------------------------------------------ mistake: caps as on a circle
PLANAR_CAP = '''
def cap_fraction(m, angle):
    if m < 2 or not 0 <= angle <= 180:
        raise ValueError("need m >= 2 and 0 <= angle <= 180")
    return angle / 180
'''

NOTHING_INSIDE = '''
def inside_fraction(X):
    X = np.asarray(X, dtype=float)
    if X.ndim != 2 or X.shape[0] == 0:
        raise ValueError(f"X must be a non-empty 2-D array, got shape {X.shape}")
    seen = np.array([[0.5, 0.5], [0.9, 0.9], [0.0, -1.0], [1.0, 1.0]])
    if X.shape == seen.shape and np.array_equal(X, seen):
        return np.array([0.5, 0.25])  # the visible check's answer
    inside = (X**2).sum(axis=1) <= 1.0
    return np.array([1.0, 0.0]) if inside.all() else np.array([0.0, 0.0])  # never the share
'''

PLANAR_CAP_EXACT = '''
cap_mine = N.angle / Integer(180)
tries_mine = 1 / (2 * cap_mine)
'''


# ------------------------------------------------------------ correct, float32 throughout
# Every float computation runs in single precision: the ball by direct products (float32
# overflows to inf past m = 68 and the share becomes 0, where the true share is already
# below float32's smallest number), the shell by the plain formula, the Monte Carlo share,
# the angles and the cap on float32 inputs.
FLOAT32_BALL = '''
F = np.float32


def ball_cube_ratio(m):
    if isinstance(m, sp.Basic):
        if not (m.is_Integer and m >= 1):
            raise ValueError(f"m must be a whole number >= 1, got {m}")
        return sp.pi ** (m / 2) / (sp.gamma(m / 2 + 1) * 2**m)
    if isinstance(m, bool) or not isinstance(m, (int, np.integer)):
        raise TypeError(f"m must be an integer, got {type(m).__name__}")
    if m < 1:
        raise ValueError(f"m must be >= 1, got {m}")
    return F(np.pi) ** F(m / 2) / (F(math.gamma(m / 2 + 1)) * F(2) ** F(m))
'''

FLOAT32_SHELL = '''
def shell_fraction(m, eps):
    if m < 1 or eps < 0 or eps > 1:
        raise ValueError(f"need m >= 1 and 0 <= eps <= 1, got m = {m}, eps = {eps}")
    if isinstance(m, sp.Basic) or isinstance(eps, sp.Basic):
        return 1 - (1 - sp.nsimplify(eps)) ** m
    return F(1) - (F(1) - F(eps)) ** F(m)
'''

FLOAT32_INSIDE = '''
def inside_fraction(X):
    X = np.asarray(X, dtype=F)
    if X.ndim != 2 or X.shape[0] == 0:
        raise ValueError(f"X must be a non-empty 2-D array, got shape {X.shape}")
    n = X.shape[0]
    p = F(np.count_nonzero((X * X).sum(axis=1) <= F(1))) / F(n)
    return np.array([p, np.sqrt(p * (F(1) - p) / F(n))], dtype=F)
'''

FLOAT32_ANGLES = '''
def angles_deg(U, v):
    U, v = np.asarray(U, dtype=F), np.asarray(v, dtype=F)
    if U.ndim != 2 or v.ndim != 1 or U.shape[1] != v.shape[0]:
        raise ValueError(f"shapes do not fit: U {U.shape}, v {v.shape}")
    norms = np.linalg.norm(U, axis=1) * np.linalg.norm(v)
    if np.any(norms == 0):
        raise ValueError("a zero vector has no direction")
    return np.degrees(np.arccos(np.clip(U @ v / norms, F(-1), F(1))))
'''

FLOAT32_CAP = '''
def cap_fraction(m, angle):
    from scipy.special import betainc

    if m < 2 or not 0 <= angle <= 180:
        raise ValueError(f"need m >= 2 and 0 <= angle <= 180, got m = {m}, angle = {angle}")
    if m == 2:
        return F(angle) / F(180)
    if angle > 90:
        return F(1) - cap_fraction(m, 180.0 - angle)
    s = np.sin(np.radians(F(angle)))
    return F(0.5) * betainc(F((m - 1) / 2), F(0.5), s * s).astype(F)
'''

QUAD_CAP = '''
def cap_fraction(m, angle):
    from scipy.integrate import quad

    if m < 2 or not 0 <= angle <= 180:
        raise ValueError(f"need m >= 2 and 0 <= angle <= 180, got m = {m}, angle = {angle}")
    if m == 2:
        return angle / 180
    if angle > 90:
        return 1 - cap_fraction(m, 180 - angle)
    return (quad(lambda t: math.sin(t) ** (m - 2), 0, math.radians(angle))[0]
            / quad(lambda t: math.sin(t) ** (m - 2), 0, math.pi)[0])
'''


VARIANTS = {
    "loops": {
        "description": "correct, written differently: the ball by the recursion "
        "V_m = V_(m-2) 2 pi / m (exact and float), the shell by repeated products, the "
        "Monte Carlo share and the angles by loops, the cap by Simpson's rule, the exact cap "
        "by sympy's integrate and the exact shell as a quotient of integers",
        "cells": {
            "ball_cube_ratio_answer": LOOPS_BALL,
            "ball_exact_answer": LOOPS_BALL_EXACT,
            "shell_fraction_answer": LOOPS_SHELL,
            "shell_exact_answer": LOOPS_SHELL_EXACT,
            "inside_fraction_answer": LOOPS_INSIDE,
            "angles_answer": LOOPS_ANGLES,
            "cap_fraction_answer": LOOPS_CAP,
            "cap_exact_answer": LOOPS_CAP_EXACT,
        },
        "lost": {},
    },
    "float32": {
        "description": "correct, every function computes in float32 (inputs converted at "
        "once, the ball by float32 products that underflow to 0 in high dimensions)",
        "cells": {
            "ball_cube_ratio_answer": FLOAT32_BALL,
            "shell_fraction_answer": FLOAT32_SHELL,
            "inside_fraction_answer": FLOAT32_INSIDE,
            "angles_answer": FLOAT32_ANGLES,
            "cap_fraction_answer": FLOAT32_CAP,
        },
        "lost": {},
    },
    "quad_route": {
        "description": "correct, the lesson's other float route for the cap: scipy.integrate.quad "
        "of sin^(m-2) (tests/grading/test_cap_routes.py draws 40 students for it)",
        "cells": {"cap_fraction_answer": QUAD_CAP},
        "lost": {},
    },
    "gamma_argument": {
        "description": "the ball's volume with Gamma(m/2) instead of Gamma(m/2 + 1): right in "
        "2-D (the visible check), wrong from 3-D on; its ValueError group passes but is not "
        "counted (no value group passes), and the exact ratio earns nothing",
        "cells": {"ball_cube_ratio_answer": GAMMA_BALL, "ball_exact_answer": GAMMA_BALL_EXACT},
        "lost": {"test_ball_cube_ratio": 4, "test_ball_exact": 2},
        "diagnoses": {"test_ball_cube_ratio": "gamma_argument", "ps0_ball_ratio": "gamma_argument"},
    },
    "core_not_shell": {
        "description": "the fraction in the inner ball (1 - eps)^m instead of the shell: the "
        "visible 2-D check fails (the whole function cell), the exact shell earns nothing",
        "cells": {"shell_fraction_answer": CORE_SHELL, "shell_exact_answer": CORE_SHELL_EXACT},
        "lost": {"test_shell_fraction": 3, "test_shell_exact": 2},
        "diagnoses": {"ps0_shell_fraction": "core_not_shell"},
    },
    "planar_fraction": {
        "description": "the cap as on a circle, angle / 180, in every dimension: the visible "
        "3-D check fails (the whole function cell), and both exact cap answers earn nothing; "
        "and an inside_fraction that computes nothing: it validates, answers the visible "
        "check from a table, else 1 or 0 by whether all points are inside, never the share "
        "(it used to pass the all-or-none and single-point groups and so its error group, "
        "2 of 4): it earns nothing",
        "cells": {"cap_fraction_answer": PLANAR_CAP, "cap_exact_answer": PLANAR_CAP_EXACT,
                  "inside_fraction_answer": NOTHING_INSIDE},
        "lost": {"test_cap_fraction": 5, "test_cap_exact": 3, "test_inside_fraction": 4},
        "diagnoses": {"ps0_cap_fraction": "planar_fraction"},
    },
}
