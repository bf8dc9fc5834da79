#!/usr/bin/python3
"""Writes welch.json: Welch t-test reference values computed by SciPy.

Regenerate with Debian's SciPy (apt-get install python3-scipy):
    /usr/bin/python3 gen_welch.py > welch.json
The Go tests compare analysis/stats against these values; SciPy is not needed
to run the tests.
"""
import json
import numpy as np
from scipy import stats

rng = np.random.default_rng(20261122)
cases = []
def add(name, x, y):
    x = [float(v) for v in x]
    y = [float(v) for v in y]
    g = stats.ttest_ind(x, y, equal_var=False, alternative="greater")
    l = stats.ttest_ind(x, y, equal_var=False, alternative="less")
    t2 = stats.ttest_ind(x, y, equal_var=False)
    vx, vy = np.var(x, ddof=1), np.var(y, ddof=1)
    nx, ny = len(x), len(y)
    df = (vx/nx + vy/ny)**2 / ((vx/nx)**2/(nx-1) + (vy/ny)**2/(ny-1))
    cases.append(dict(name=name, x=x, y=y, t=float(g.statistic), df=float(df),
                      p_greater=float(g.pvalue), p_less=float(l.pvalue), p_two_sided=float(t2.pvalue)))

add("textbook-small", [19.1, 20.3, 18.7, 21.0, 19.9], [22.4, 23.0, 21.9, 22.8, 24.1, 22.2])
add("equal-means-unequal-var", rng.normal(100, 1, 30), rng.normal(100, 10, 12))
add("x-slower-by-5pct", rng.normal(105, 8, 40), rng.normal(100, 8, 40))
add("x-faster-by-half", rng.lognormal(np.log(50), 0.2, 25), rng.lognormal(np.log(100), 0.3, 60))
add("tiny-n", [1.0, 3.0], [2.0, 2.5, 2.2])
add("heavy-tail", rng.pareto(3.0, 50) + 10, rng.pareto(3.0, 70) + 10)
add("timings-ns", [312.5, 318.1, 309.9, 330.2, 311.0, 315.7, 308.8, 322.4], [18.2, 18.9, 19.4, 18.0, 18.6, 21.3, 18.4, 18.8])
print(json.dumps(cases, indent=1))
