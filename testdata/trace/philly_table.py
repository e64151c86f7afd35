#!/usr/bin/env python3
"""Regenerate lib/trace/philly_dist.c from testdata/trace/philly_runtime.csv.

usage: python3 testdata/trace/philly_table.py > /tmp/q.txt   (prints the C array body)
2001 quantiles with numpy's default (linear) interpolation, rounded to 0.01 s.
"""
import os

here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(here, "philly_runtime.csv")) as f:
    v = sorted(float(x) for x in f.read().split()[1:])
n = len(v)


def q(p):
    h = (n - 1) * p
    i = int(h)
    return v[i] + (v[min(i + 1, n - 1)] - v[i]) * (h - i)


print(", ".join(("%.2f" % q(k / 2000)).rstrip("0").rstrip(".") for k in range(2001)))
