"""Tests for the chapter-11 checks: the self-checks that ship (kmlib.book.exercises.ch11) and
the lecturer's full checks (scripts/_grading/reference/ch11.py).

Both must accept the right answer, computed here by an independent route (E k(X, X') as a
Gaussian density of the difference of means with scipy.stats, kmlib's own ``KernelPCA``,
MMD^2 from scipy's normal densities maximised by Brent's method, kmlib's ``hsic`` for the
statistic and every permuted sample), accept it in another valid form (other signs, lists),
and reject ``None``. The full check must reject typical wrong answers with a diagnosing
message that does not contain the reference value; the self-check those its properties can
tell (range, centring, orthogonality, order, the form of a p-value, the hashes of the
sheet's answers). The last test runs the exercise notebook with solutions (self-checks, then
the full checks in their place as when grading) and with ``None`` stubs.
"""
from __future__ import annotations

import re
from pathlib import Path

import _exercise_cells as notebook
import numpy as np
import pytest
from _exercise_cells import self_and_full
from _grading.reference import ch11 as ref
from scipy import optimize, stats

from kmlib import kernels
from kmlib.book.exercises import ch11
from kmlib.unsupervised import KernelPCA, hsic

pytestmark = pytest.mark.filterwarnings("error")

NOTEBOOK = Path(__file__).resolve().parents[1] / "exercises" / "11_mean_embeddings.md"


_both, _rejected = self_and_full(ch11, ref)


def _no_leak(message: str, value: float) -> None:
    """The message must not print the reference value (to 3 significant digits)."""
    for num in re.findall(r"-?\d+\.\d+(?:e-?\d+)?", message):
        assert not np.isclose(float(num), value, rtol=1e-3), f"{message!r} leaks {value}"


# --------------------------------------------------------------------------- #
# MMD between two Gaussian distributions
# --------------------------------------------------------------------------- #
def _ek_density(ma, sa, mb, sb, sigma, d=3):
    """E k(X, X') = (2 pi sigma^2)^{d/2} times the N(0, (sigma^2 + sa^2 + sb^2) I) density at
    ma - mb: k(x, .) is a scaled normal density, and X - X' is normal."""
    cov = (sigma**2 + sa**2 + sb**2) * np.eye(d)
    return (2 * np.pi * sigma**2) ** (d / 2) * stats.multivariate_normal(np.zeros(d), cov).pdf(
        np.asarray(ma) - np.asarray(mb))


@pytest.fixture(scope="module")
def gaussian_mmd():
    m_p, s_p, m_q, s_q, sigma = ch11.gaussian_mmd_data()
    terms = (_ek_density(m_p, s_p, m_p, s_p, sigma), _ek_density(m_q, s_q, m_q, s_q, sigma),
             _ek_density(m_p, s_p, m_q, s_q, sigma))
    return terms, terms[0] + terms[1] - 2 * terms[2]


def test_check_gaussian_mmd_accepts_the_density_route(gaussian_mmd, capsys):
    _, value = gaussian_mmd
    _both(capsys, lambda m: m.check_gaussian_mmd(value))
    _both(capsys, lambda m: m.check_gaussian_mmd(np.array([value])))


def test_check_gaussian_mmd_rejects_mistakes(gaussian_mmd):
    terms, value = gaussian_mmd
    m_p, s_p, m_q, s_q, sigma = ch11.gaussian_mmd_data()

    def power_half(ma, sa, mb, sb):                 # the prefactor of d = 1, used in d = 3
        v = sigma**2 + sa**2 + sb**2
        return np.sqrt(sigma**2 / v) * np.exp(-np.sum((ma - mb) ** 2) / (2 * v))

    one_d = (power_half(m_p, s_p, m_p, s_p) + power_half(m_q, s_q, m_q, s_q)
             - 2 * power_half(m_p, s_p, m_q, s_q))
    for wrong, full, self_match in [
            (one_d, "power d/2", "not recognised"),
            (terms[0] + terms[1] - terms[2], "twice", "not recognised"),
            (np.sqrt(value), "square", "not recognised"),
            (-value, "not E k", "negative"), (2.5, "not E k", "at most 2"),
            (None, "None", "None")]:
        for message in _rejected(lambda m, w=wrong: m.check_gaussian_mmd(w), full, self_match):
            _no_leak(message, value)


# --------------------------------------------------------------------------- #
# kernel PCA by hand
# --------------------------------------------------------------------------- #
@pytest.fixture(scope="module")
def kpca():
    """Reference: kmlib's KernelPCA (the full check uses scikit-learn's)."""
    X, X_new, sigma = ch11.kpca_data()
    model = KernelPCA(2, kernel=kernels.gaussian(sigma)).fit(X)
    return model.transform(X), model.transform(X_new), model.eigenvalues_


def test_check_kpca_accepts_any_signs(kpca, capsys):
    Zt, Zn, _ = kpca
    _both(capsys, lambda m: m.check_kpca(Zt, Zn))
    flip = np.array([-1.0, 1.0])
    _both(capsys, lambda m: m.check_kpca((Zt * flip).tolist(), Zn * flip))


def test_check_kpca_rejects_mistakes(kpca):
    Zt, Zn, nu = kpca
    X, X_new, sigma = ch11.kpca_data()
    K = kernels.gaussian(sigma)(X)
    ev, vec = np.linalg.eigh(K)
    uncentred = vec[:, ::-1][:, :2] * np.sqrt(ev[::-1][:2])
    n = len(X)
    raw_new = kernels.gaussian(sigma)(X_new, X) @ (Zt / nu)
    for args, full, self_match in [
            ((uncentred, Zn), "UNCENTRED", "average to zero"),
            ((Zt / np.sqrt(nu), Zn), "unit eigenvectors", "norm 1"),
            ((Zt / np.sqrt(n), Zn), "factor", "nu_l / n"),
            ((Zt * np.sqrt(n), Zn), "factor", "n nu_l"),
            ((Zt[:, ::-1], Zn[:, ::-1]), "wrong order", "decreasing"),
            ((Zt, raw_new), "raw kernel vectors", "TRAINING means"),
            ((Zt, Zn * np.array([1.0, -1.0])), "opposite sign", None),
            ((Zt[:30], Zn), "shape", "shape"),
            ((None, Zn), "None", "None")]:
        _rejected(lambda m, args=args: m.check_kpca(*args), full, self_match)


# --------------------------------------------------------------------------- #
# the width that maximises MMD
# --------------------------------------------------------------------------- #
def _mmd2_density(s, a):
    """MMD^2(N(0,1), Q_a) from normal densities: E k = sqrt(2 pi) s N(0, s^2 + v) pdf at dm."""
    b2 = 1 - a * a
    ek = lambda dm, v: np.sqrt(2 * np.pi) * s * stats.norm.pdf(dm, scale=np.sqrt(s**2 + v))  # noqa: E731
    qq = (ek(0, 2 * b2) + ek(2 * a, 2 * b2)) / 2
    return ek(0, 2) + qq - 2 * ek(a, 1 + b2)


@pytest.fixture(scope="module")
def width():
    a, lo, hi = ch11.width_data()
    r = optimize.minimize_scalar(lambda s: -_mmd2_density(s, a), bracket=(0.2, 0.4, 1.0),
                                 method="brent", tol=1e-12)
    assert lo < r.x < hi
    return r.x, -r.fun


def test_check_width_accepts_brent(width, capsys):
    s, v = width
    _both(capsys, lambda m: m.check_width(s, v))


def test_check_width_rejects_mistakes(width):
    s, v = width
    r09 = optimize.minimize_scalar(lambda t: -_mmd2_density(t, 0.9), bracket=(0.2, 0.4, 1.0),
                                   method="brent", tol=1e-12)
    for args, full, self_match in [
            ((r09.x, -r09.fun), "a = 0.9", "not recognised"),
            ((s, np.sqrt(v)), "its square", "not recognised"),
            ((s * 1.002, v), "not accurate", "four digits"),
            ((3.5, v), "interval", "interval"), ((s, v * 3), "do not maximise", "not recognised"),
            ((None, v), "None", "None")]:
        for message in _rejected(lambda m, args=args: m.check_width(*args), full, self_match):
            _no_leak(message, v)
            _no_leak(message, s)


# --------------------------------------------------------------------------- #
# HSIC and its permutation test
# --------------------------------------------------------------------------- #
@pytest.fixture(scope="module")
def hsic_answer():
    """Reference: kmlib's hsic on the data and on every permuted sample."""
    x, y, perms, sx, sy = ch11.hsic_data()
    kx, ky = kernels.gaussian(sx), kernels.gaussian(sy)
    stat = hsic(x, y, kernel_x=kx, kernel_y=ky)
    null = np.array([hsic(x, y[p], kernel_x=kx, kernel_y=ky) for p in perms])
    return stat, null, (1 + np.sum(null >= stat)) / (len(perms) + 1)


def test_check_hsic_accepts_the_library_route(hsic_answer, capsys):
    stat, _, p = hsic_answer
    _both(capsys, lambda m: m.check_hsic_test(stat, p))
    _both(capsys, lambda m: m.check_hsic_test(np.float64(stat), float(p)))


def test_check_hsic_rejects_mistakes(hsic_answer):
    stat, null, p = hsic_answer
    x, y, perms, sx, sy = ch11.hsic_data()
    n, B = len(x), len(perms)
    uncentred = float(np.sum(kernels.gaussian(sx)(x) * kernels.gaussian(sy)(y))) / n**2
    for args, full, self_match in [
            ((stat * n**2 / (n - 1) ** 2, p), "\\(n - 1\\)\\^2", "\\(n - 1\\)\\^2"),
            ((uncentred, p), "uncentred", "not recognised"),
            ((stat, np.sum(null >= stat) / B), "counts the observed", "multiple of"),
            ((stat, (1 + np.sum(null <= stat)) / (B + 1)), "AT LEAST", "not recognised"),
            ((stat, 1.0), "Permute y only", "not recognised"),
            ((-stat, p), "not tr", "negative"),
            ((None, p), "None", "None"), ((stat, None), "None", "None")]:
        for message in _rejected(lambda m, args=args: m.check_hsic_test(*args), full, self_match):
            _no_leak(message, stat)


# --------------------------------------------------------------------------- #
# the notebook
# --------------------------------------------------------------------------- #
def test_the_self_checks_hashes_are_the_sheets_answers(gaussian_mmd, kpca, width, hsic_answer):
    """Each digest in ch11 recognises the answer computed here by an independent route."""
    assert ch11._known(gaussian_mmd[1], "mmd2_ab")
    Zt, Zn, nu = kpca
    assert all(ch11._known(v, f"Z_train:nu{i}") for i, v in enumerate(nu))
    assert all(ch11._known(v, f"Z_new:col{i}") for i, v in enumerate(np.sum(Zn**2, axis=0)))
    assert ch11._known(width[0], "sigma_best") and ch11._known(width[1], "mmd2_best")
    assert ch11._known(hsic_answer[0], "hsic_stat") and ch11._known(hsic_answer[2], "p_value")


def test_hsic_null_values_are_well_separated_from_the_statistic(hsic_answer):
    """The p-value does not hinge on rounding: no permuted value within 1e-6 of the statistic."""
    stat, null, _ = hsic_answer
    assert np.min(np.abs(null - stat)) > 1e-6 * stat


def test_notebook_passes_self_checks_and_full_checks_and_stubs_fail(capsys, monkeypatch):
    """Solution notebook: every check passes, the self-checks and then, in their place as
    when grading, the full checks. Student stubs (None): every check fails."""
    notebook.assert_sheet_passes_self_then_full(NOTEBOOK, ch11, ref, 4, capsys, monkeypatch)
