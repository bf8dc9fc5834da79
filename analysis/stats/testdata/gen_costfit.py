#!/usr/bin/python3
"""Writes costfit.json: weighted least-squares fits of the cost models by statsmodels.

Regenerate with Debian's packages (apt-get install python3-statsmodels):
    /usr/bin/python3 gen_costfit.py > costfit.json
Each class y = a + b*g(n) is fitted by WLS with weights 1/y^2, the power law
y = A*n^B by OLS of log y on log n; the Go tests compare the coefficients,
their covariance and the 95 % confidence interval of the fitted mean at a few n
(get_prediction().conf_int()). statsmodels is not needed to run the tests.
"""
import json
import numpy as np
import statsmodels.api as sm

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
    w = 1 / y**2
    c = sm.WLS(y, np.ones_like(y), weights=w).fit()
    pr = c.get_prediction(np.ones((len(at), 1))).conf_int(alpha=0.05)
    fits["1"] = {"a": float(c.params[0]), "b": 0.0, "cov": [[float(c.cov_params()[0][0]), 0.0], [0.0, 0.0]],
                 "lo": pr[:, 0].tolist(), "hi": pr[:, 1].tolist()}
    for model, g in G.items():
        X = sm.add_constant(g(n))
        r = sm.WLS(y, X, weights=w).fit()
        Xa = sm.add_constant(g(np.array(at)), has_constant="add")
        pr = r.get_prediction(Xa).conf_int(alpha=0.05)
        fits[model] = {"a": float(r.params[0]), "b": float(r.params[1]), "cov": np.asarray(r.cov_params()).tolist(),
                       "lo": pr[:, 0].tolist(), "hi": pr[:, 1].tolist()}
    X = sm.add_constant(np.log(n))
    r = sm.OLS(np.log(y), X).fit()
    pr = r.get_prediction(sm.add_constant(np.log(np.array(at)), has_constant="add")).conf_int(alpha=0.05)
    fits["n^k"] = {"a": float(np.exp(r.params[0])), "b": float(r.params[1]), "cov": np.asarray(r.cov_params()).tolist(),
                   "lo": np.exp(pr[:, 0]).tolist(), "hi": np.exp(pr[:, 1]).tolist()}
    cases.append({"name": name, "n": n.tolist(), "y": y.tolist(), "at": at, "fits": fits})

add("quadratic", [10, 30, 100, 300, 1000, 3000], lambda n: 20 + 0.01 * n * n, 0.05)
add("linear", [100, 1000, 10000, 100000], lambda n: 50 + 0.5 * n, 0.10)
add("nlogn", [16, 64, 256, 1024, 4096, 16384], lambda n: 30 + 2 * n * np.log(n), 0.03)
add("constant", [10, 100, 1000, 10000], lambda n: 40 + 0 * n, 0.02)
print(json.dumps(cases, indent=1))
