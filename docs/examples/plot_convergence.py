"""
Convergence per sweep
=====================

Each EMP is found by alternating sweeps: one update per mode, each the top eigenvector of that mode's
(constrained) scatter, which never decreases the captured variance. ``history_`` holds, per EMP, the objective
at the start and after each sweep; the paper runs K = 20 sweeps (``max_iter``), and ``tol`` can stop an EMP
once its relative change is small.
"""

import matplotlib.pyplot as plt
from sklearn.datasets import load_digits

import sompca

X = load_digits().images
model = sompca.SOMPCA(n_components=6, relaxed_start=False, sort_features=False).fit(X)

fig, ax = plt.subplots(figsize=(6, 4))
for p, history in enumerate(model.history_):
    ax.plot(range(len(history)), history / history[-1], marker=".", label=f"EMP {p + 1}")
ax.set_xlabel("sweep (0 = the uniform start)")
ax.set_ylabel("captured variance / final")
ax.legend()
ax.set_title("SO-MPCA on the digits: the objective per sweep")
fig.tight_layout()

# %%
# With ``tol`` the EMPs stop as soon as a sweep changes the objective by at most ``tol`` (relatively).
early = sompca.SOMPCA(n_components=6, relaxed_start=False, sort_features=False, tol=1e-6).fit(X)
print("sweeps per EMP, max_iter=20:", model.n_iter_per_component_)
print("sweeps per EMP, tol=1e-6:   ", early.n_iter_per_component_)
