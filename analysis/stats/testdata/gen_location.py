#!/usr/bin/python3
"""Writes location.json: medians and Student-t intervals computed by NumPy and SciPy.

Regenerate with Debian's SciPy (apt-get install python3-scipy; 1.10 was used):
    /usr/bin/python3 gen_location.py > location.json
perfls's median is the lower middle value for even n, NumPy's
quantile(x, 0.5, method="inverted_cdf"); the interval is
scipy.stats.t.interval(level, n-1, loc=mean, scale=sem).
"""
import json
import numpy as np
from scipy import stats

rng = np.random.default_rng(20261124)
cases = []
def add(name, x, level=0.95):
    x = [float(v) for v in x]
    lo, hi = stats.t.interval(level, len(x) - 1, loc=np.mean(x), scale=stats.sem(x))
    cases.append(dict(name=name, x=x, level=level,
                      median=float(np.quantile(x, 0.5, method="inverted_cdf")),
                      lo=float(lo), hi=float(hi)))

add("two", [3.0, 1.0])
add("odd", [5.0, 1.0, 4.0, 2.0, 3.0])
add("even-ties", [2.0, 2.0, 7.0, 1.0, 7.0, 3.0])
add("fork-means", rng.lognormal(np.log(1000), 0.03, 5))
add("fork-means-99", rng.lognormal(np.log(1000), 0.03, 5), level=0.99)
add("skewed", rng.lognormal(0, 1.5, 40))
add("large-even", rng.normal(100, 5, 1000))
print(json.dumps(cases, indent=1))
