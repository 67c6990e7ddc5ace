"""Straightforward NumPy implementations of the methods sompca fits, for the
benchmark (bench/run.py) to time sompca against.

Written from the definitions (Shi and Lu, IJCAI 2015, Sec. 3; Lu et al.
2008 for MPCA; Xu et al. 2005 for CSA), independently of the solver's
code: every mode update forms the mode scatter of the partial projections
with one tensor contraction and diagonalises it with numpy.linalg.eigh,
as a NumPy user would write it. The data are converted to float64 once.
K = 20 sweeps and tol = 0, as in the benchmark table.
"""

import numpy as np


def _fix_sign(v):
    """Flip v so that its entry of largest magnitude (first on ties) is positive."""
    return -v if v[np.argmax(np.abs(v))] < 0 else v


def _partial(X, vs, n):
    """Contract X (M, I_1, ..., I_N) with vs[k] in every mode k != n: (M, I_n)."""
    M = X.shape[0]
    Y = X
    for k in reversed(range(n + 1, len(vs))):  # trailing modes: Y @ v on the last axis
        Y = Y @ vs[k]
    for k in range(n):  # leading modes: v @ Y on the first mode, as a batched product
        Y = (vs[k] @ Y.reshape(M, vs[k].size, -1)).reshape((M,) + Y.shape[2:])
    return Y


def so_mpca_rs(X, P, K=20):
    """SO-MPCA with relaxed start; returns (vectors[p][n], variance)."""
    X = np.asarray(X, dtype=np.float64)
    M, shape = X.shape[0], X.shape[1:]
    Xc = X - X.mean(axis=0)
    nu = int(np.argmax(shape))
    uniform = [np.full(d, 1 / np.sqrt(d)) for d in shape]
    emps, variance = [], []
    for p in range(P):
        vs = [u.copy() for u in uniform]
        if p > 0:
            C = np.stack([e[nu] for e in emps], axis=1)
            Gamma = np.eye(shape[nu]) - C @ C.T
            for _ in range(K):
                for n in range(len(shape)):
                    Y = _partial(Xc, vs, n)
                    S = Y.T @ Y
                    if n == nu:
                        S = Gamma @ S @ Gamma
                    w, V = np.linalg.eigh(S)
                    vs[n] = _fix_sign(V[:, -1])
        emps.append(vs)
        y = _partial(Xc, vs, len(shape) - 1) @ vs[-1]
        variance.append(y @ y / (M - 1))
    return emps, np.array(variance)


def _project(X, Us, skip):
    """X (M, I_1, ..., I_N) times U_k^T in every mode k != skip."""
    Y = X
    for k, U in enumerate(Us):
        if k != skip and U is not None:
            Y = np.moveaxis(np.tensordot(Y, U, axes=([k + 1], [0])), -1, k + 1)
    return Y


def _mode_scatter(Y, n):
    """sum_m Y_m(n) Y_m(n)^T of the (M, ...) tensor Y."""
    Yn = np.moveaxis(Y, n + 1, 1).reshape(Y.shape[0], Y.shape[n + 1], -1)
    return np.einsum("mik,mjk->ij", Yn, Yn)


def _top(S, r):
    w, V = np.linalg.eigh(S)
    return np.stack([_fix_sign(V[:, -1 - j]) for j in range(r)], axis=1), w[::-1]


def tucker(X, method, Q=0.97, K=20):
    """MPCA (centred, eigenvector start) or CSA (uncentred, identity start).

    Returns the factor matrices and the variance (MPCA) or energy (CSA) of
    every entry of the projected tensor.
    """
    X = np.asarray(X, dtype=np.float64)
    shape = X.shape[1:]
    N = len(shape)
    if method == "mpca":
        X = X - X.mean(axis=0)
    Us, ranks = [], []
    for n in range(N):
        V, w = _top(_mode_scatter(X, n), shape[n])
        share = np.cumsum(np.maximum(w, 0))
        r = int(np.searchsorted(share, Q * share[-1]) + 1)
        ranks.append(r)
        Us.append(V[:, :r] if method == "mpca" else np.eye(shape[n])[:, :r])
    for _ in range(K):
        for n in range(N):
            Us[n] = _top(_mode_scatter(_project(X, Us, n), n), ranks[n])[0]
    Y = _project(X, Us, -1).reshape(X.shape[0], -1)
    key = (Y**2).sum(axis=0) if method == "csa" else Y.var(axis=0, ddof=1)
    return Us, key
