#!/usr/bin/python3
"""Writes costfit.json: the cost models' fits by statsmodels.

Regenerate with Debian's packages (apt-get install python3-statsmodels):
    /usr/bin/python3 gen_costfit.py > costfit.json
Each class y = a + b*g(n) is the mean of a Gamma GLM with the identity link
(variance proportional to the squared mean: weights 1/yhat^2, iterated), the
power law y = A*n^B that of a Gamma GLM with the log link; both with the
Pearson scale (X2). The coefficients must equal those of WLS with the converged
weights 1/yhat^2 (checked here); the covariance and the 95 % confidence
interval of the fitted mean at a few n are that WLS's (get_prediction().conf_int(),
Student-t), for the power law a t interval of the linear predictor with the
GLM's covariance, transformed back. The Go tests compare them, except where
the fitted mean is not positive at every point ("positive": false, a class that
does not fit the data): perfls must reject that fit instead. statsmodels is
not needed to run the tests.
"""
import json
import warnings
import numpy as np
import statsmodels.api as sm
from scipy import stats

warnings.simplefilter("ignore", sm.tools.sm_exceptions.DomainWarning)  # the identity link: checked by "positive"
rng = np.random.default_rng(20261126)
G = {
    "log n": np.log,
    "n": lambda n: n,
    "n log n": lambda n: n * np.log(n),
    "n^2": lambda n: n * n,
}
cases = []
def add(name, ns, truth, noise):
    n = np.repeat(np.array(ns, dtype=float), 3)
    y = truth(n) * np.exp(noise * rng.standard_normal(len(n)))
    at = [float(ns[0]), float(np.sqrt(ns[0] * ns[-1])), float(ns[-1]) * 2]
    fits = {}
    def glm_wls(X, Xa):
        g = sm.GLM(y, X, family=sm.families.Gamma(link=sm.families.links.identity())).fit(scale="X2", tol=1e-14, maxiter=1000)
        mu = g.fittedvalues
        r = sm.WLS(y, X, weights=1 / mu**2).fit()
        assert np.allclose(r.params, g.params, rtol=1e-10, atol=0), (name, r.params, g.params)
        assert np.allclose(r.cov_params(), g.cov_params(), rtol=1e-8, atol=0), (name, r.cov_params(), g.cov_params())
        pr = r.get_prediction(Xa).conf_int(alpha=0.05)
        return r, pr, bool(np.all(mu > 0))
    c, pr, pos = glm_wls(np.ones((len(y), 1)), np.ones((len(at), 1)))
    fits["1"] = {"a": float(c.params[0]), "b": 0.0, "cov": [[float(c.cov_params()[0][0]), 0.0], [0.0, 0.0]],
                 "lo": pr[:, 0].tolist(), "hi": pr[:, 1].tolist(), "positive": pos}
    for model, g in G.items():
        r, pr, pos = glm_wls(sm.add_constant(g(n)), sm.add_constant(g(np.array(at)), has_constant="add"))
        fits[model] = {"a": float(r.params[0]), "b": float(r.params[1]), "cov": np.asarray(r.cov_params()).tolist(),
                       "lo": pr[:, 0].tolist(), "hi": pr[:, 1].tolist(), "positive": pos}
    X = sm.add_constant(np.log(n))
    r = sm.GLM(y, X, family=sm.families.Gamma(link=sm.families.links.log())).fit(scale="X2", tol=1e-14, maxiter=1000)
    Xa = sm.add_constant(np.log(np.array(at)), has_constant="add")
    cov = np.asarray(r.cov_params())
    eta = Xa @ r.params
    se = np.sqrt(np.einsum("ij,jk,ik->i", Xa, cov, Xa))
    t = stats.t.ppf(0.975, len(y) - 2)
    fits["n^k"] = {"a": float(np.exp(r.params[0])), "b": float(r.params[1]), "cov": cov.tolist(),
                   "lo": np.exp(eta - t * se).tolist(), "hi": np.exp(eta + t * se).tolist(), "positive": True}
    cases.append({"name": name, "n": n.tolist(), "y": y.tolist(), "at": at, "fits": fits})

add("quadratic", [10, 30, 100, 300, 1000, 3000], lambda n: 20 + 0.01 * n * n, 0.05)
add("linear", [100, 1000, 10000, 100000], lambda n: 50 + 0.5 * n, 0.10)
add("nlogn", [16, 64, 256, 1024, 4096, 16384], lambda n: 30 + 2 * n * np.log(n), 0.03)
add("constant", [10, 100, 1000, 10000], lambda n: 40 + 0 * n, 0.02)
print(json.dumps(cases, indent=1))
