#!/usr/bin/python3
"""Writes mwu.json: Mann-Whitney U reference values computed by SciPy.

Regenerate with Debian's SciPy (apt-get install python3-scipy; 1.10 was used):
    /usr/bin/python3 gen_mwu.py > mwu.json
perfls implements the normal approximation with tie and continuity
correction, i.e. mannwhitneyu(x, y, method="asymptotic", use_continuity=True).
"""
import json
import numpy as np
from scipy import stats

rng = np.random.default_rng(20261123)
cases = []
def add(name, x, y):
    x = [float(v) for v in x]
    y = [float(v) for v in y]
    r = {}
    for alt in ("greater", "less", "two-sided"):
        res = stats.mannwhitneyu(x, y, alternative=alt, method="asymptotic", use_continuity=True)
        r[alt] = res
    cases.append(dict(name=name, x=x, y=y, u1=float(r["greater"].statistic),
                      p_greater=float(r["greater"].pvalue), p_less=float(r["less"].pvalue),
                      p_two_sided=float(r["two-sided"].pvalue)))

add("textbook-small", [19.1, 20.3, 18.7, 21.0, 19.9], [22.4, 23.0, 21.9, 22.8, 24.1, 22.2])
add("ties", [1, 2, 2, 3, 3, 3, 4], [2, 3, 3, 4, 4, 5, 5, 5])
add("equal-dists", rng.normal(100, 5, 40), rng.normal(100, 5, 35))
add("shifted-3pct", rng.lognormal(np.log(103), 0.05, 60), rng.lognormal(np.log(100), 0.05, 60))
add("quantised-timer", np.round(rng.normal(50, 2, 80)), np.round(rng.normal(51, 2, 70)))
add("tiny", [1.0, 2.0], [3.0])
add("all-equal", [5.0, 5.0, 5.0], [5.0, 5.0])
print(json.dumps(cases, indent=1))
