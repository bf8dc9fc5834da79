#!/usr/bin/python3
"""Writes blocks.json: the treatment F test of a randomized complete block
design (two-way ANOVA without replication), computed by statsmodels.

Regenerate with Debian's statsmodels (0.13 was used):
    /usr/bin/python3 gen_blocks.py > blocks.json
Rows are blocks (a model's values), columns treatments (rounds of forks);
the model is y ~ C(block) + C(treatment), the F test is the treatment's.
"""
import json, sys
import numpy as np
import pandas as pd
import statsmodels.formula.api as smf
from statsmodels.stats.anova import anova_lm

rng = np.random.default_rng(20261126)
cases = []
def add(name, rows):
    rows = [[float(v) for v in r] for r in rows]
    df = pd.DataFrame([(i, j, v) for i, r in enumerate(rows) for j, v in enumerate(r)], columns=["block", "treat", "y"])
    a = anova_lm(smf.ols("y ~ C(block) + C(treat)", data=df).fit(), typ=2)
    cases.append(dict(name=name, rows=rows, f=float(a.loc["C(treat)", "F"]), p=float(a.loc["C(treat)", "PR(>F)"])))

add("textbook", [[72, 84, 80], [60, 70, 78], [55, 63, 77], [80, 91, 93], [65, 72, 80], [71, 70, 88]])
add("run-K-like-log", np.log([[102.9, 108.6, 218.9], [221.5, 234.5, 367.6], [421.4, 655.1, 773.3],
                              [726.5, 948.8, 1642], [1086, 972.9, 2617], [1817, 1914, 3225]]))
add("no-effect-6x3", rng.normal(0, 0.3, (6, 3)))
add("no-effect-10x4", rng.normal(0, 0.2, (10, 4)))
add("shift-8x2", rng.normal(0, 0.1, (8, 2)) + np.array([0, 0.2]))
add("shift-8x5", rng.normal(0, 0.1, (8, 5)) + np.array([0, 0, 0.3, 0, 0]))
json.dump(cases, sys.stdout, indent=1)
