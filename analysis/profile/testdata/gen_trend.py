#!/usr/bin/python3
"""Writes trend.json: Mann-Kendall (Kendall's tau against the index) and
Theil-Sen reference values computed by SciPy, for analysis/profile's ramp test.

Regenerate with Debian's SciPy (apt-get install python3-scipy):
    /usr/bin/python3 gen_trend.py > trend.json
The Go tests compare against these values; SciPy is not needed to run them.
"""
import json
import numpy as np
from scipy import stats

rng = np.random.default_rng(20261124)
cases = []
def add(name, y):
    y = [float(v) for v in y]
    x = np.arange(len(y))
    k = stats.kendalltau(x, y, method="asymptotic")
    ts = stats.theilslopes(y, x)  # intercept: median(y) - slope*median(x)
    # z of the uncorrected normal approximation, signed like tau.
    z = float(stats.norm.isf(k.pvalue / 2)) * (1 if k.statistic >= 0 else -1)
    cases.append(dict(name=name, y=y, tau=float(k.statistic), p_two_sided=float(k.pvalue), z=z,
                      slope=float(ts.slope), intercept=float(ts.intercept)))

add("flat-noise", rng.normal(100, 5, 20))
add("ramp", 100 + 3 * np.arange(20) + rng.normal(0, 5, 20))
add("ramp-with-outlier", np.concatenate([100 + 2 * np.arange(15) + rng.normal(0, 2, 15), [500]]))
add("decreasing", 200 - 4 * np.arange(25) + rng.normal(0, 3, 25))
add("ties", [5, 5, 6, 6, 6, 7, 7, 8, 8, 8, 8, 9])
add("single-spike", [10, 10.2, 9.9, 10.1, 80, 10, 9.8, 10.3, 10.1, 9.9, 10.2, 10])
add("short", [3.0, 1.0, 2.0])
print(json.dumps(cases, indent=1))
