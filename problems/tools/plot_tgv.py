#!/usr/bin/env python3
"""The Taylor-Green vortex's kinetic-energy dissipation rate against the DNS.

usage: plot_tgv.py run.csv [-o tgv.png] [--column ke] [--volume V] [--rho0 1]
                   [--reference problems/cases/tgv_ns/reference_dissipation.csv]

run.csv is a dgrun history ([output] history; problems/io/history.h: a header
row "t,step,dt,wall,<quantities>", then one row per history time).  Its column
ke (the flux file's `integral ke = 0.5*dot(m, m)/rho`) over rho0 * volume is
E_k = (1/(rho0 |V|)) int rho |u|^2/2 dV, the quantity of the workshop case C3.5
(|V| = (2 pi)^3 by default); the dissipation rate -dE_k/dt comes from central
differences on the history's (possibly uneven) times, second order
(Fornberg 1988: the three-point weights of the unequal-spacing formula), one-
sided at the two ends.  The reference is the 512^3 spectral DNS of van Rees et
al. 2011 (reference_dissipation.csv, its source in its header).

Prints the run's peak -dE_k/dt and its time beside the reference's, and the
relative L2 misfit over the run's time span.  With matplotlib it draws both
curves into the PNG; without it (exit status 0) it writes the run's t, E_k and
-dE_k/dt as <run>_dissipation.csv instead.
"""
import argparse
import bisect
import csv
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_REF = os.path.join(HERE, "..", "cases", "tgv_ns", "reference_dissipation.csv")


def read_history(path, column):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    if not rows or rows[0][:4] != ["t", "step", "dt", "wall"]:
        sys.exit(f"plot_tgv: {path} is not a dgrun history (no header t,step,dt,wall)")
    head = rows[0]
    if column not in head:
        sys.exit(f"plot_tgv: {path} has no column {column} (it has {', '.join(head)}); "
                 f"the flux file needs `integral {column} = 0.5*dot(m, m)/rho`")
    it, ic = head.index("t"), head.index(column)
    t, e = [], []
    for r in rows[1:]:
        if len(r) != len(head):
            continue  # a killed run's last, partial row
        tv = float(r[it])
        if t and tv <= t[-1]:
            continue  # a repeated time (the final row at an output time)
        t.append(tv)
        e.append(float(r[ic]))
    if len(t) < 3:
        sys.exit(f"plot_tgv: {path} has {len(t)} distinct times; the rate needs at least 3")
    return t, e


def read_reference(path):
    t, d = [], []
    with open(path, newline="") as f:
        lines = [line for line in f if not line.startswith("#")]
    for r in csv.DictReader(lines):
        t.append(float(r["t"]))
        d.append(float(r["dissipation"]))
    return t, d


def rate(t, e):
    """-dE/dt at every t: the three-point formula of unequal steps inside,
    one-sided second-order ones at the ends."""
    n = len(t)
    out = [0.0] * n
    for i in range(n):
        j = min(max(i, 1), n - 2)  # the stencil's centre: i inside, its neighbour at an end
        t0, t1, t2 = t[j - 1], t[j], t[j + 1]
        x = t[i]
        # derivatives of the Lagrange basis through t0, t1, t2, at x
        w0 = (2 * x - t1 - t2) / ((t0 - t1) * (t0 - t2))
        w1 = (2 * x - t0 - t2) / ((t1 - t0) * (t1 - t2))
        w2 = (2 * x - t0 - t1) / ((t2 - t0) * (t2 - t1))
        out[i] = -(w0 * e[j - 1] + w1 * e[j] + w2 * e[j + 1])
    return out


def interp(tr, dr, x):
    k = bisect.bisect_left(tr, x)
    if k <= 0:
        return dr[0]
    if k >= len(tr):
        return dr[-1]
    a = (x - tr[k - 1]) / (tr[k] - tr[k - 1])
    return (1 - a) * dr[k - 1] + a * dr[k]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("csv", help="the run's history")
    ap.add_argument("-o", "--output", help="PNG (default: the history's name + _dissipation.png)")
    ap.add_argument("--column", default="ke", help="the kinetic-energy integral (default ke)")
    ap.add_argument("--volume", type=float, default=(2 * math.pi) ** 3,
                    help="the domain's volume (default (2 pi)^3)")
    ap.add_argument("--rho0", type=float, default=1.0, help="reference density (default 1)")
    ap.add_argument("--reference", default=DEFAULT_REF, help="reference CSV (t,...,dissipation)")
    a = ap.parse_args()

    t, ke = read_history(a.csv, a.column)
    ek = [v / (a.rho0 * a.volume) for v in ke]
    eps = rate(t, ek)
    tr, dr = read_reference(a.reference)

    ip = max(range(len(t)), key=lambda i: eps[i])
    ir = max(range(len(tr)), key=lambda i: dr[i])
    print(f"run:       peak -dE_k/dt = {eps[ip]:.6g} at t = {t[ip]:.4g} "
          f"(E_k {ek[0]:.6g} at t = {t[0]:.4g}, {ek[-1]:.6g} at t = {t[-1]:.4g})")
    print(f"reference: peak -dE_k/dt = {dr[ir]:.6g} at t = {tr[ir]:.4g} (512^3 spectral DNS)")
    inside = [i for i in range(len(t)) if tr[0] <= t[i] <= tr[-1]]
    if inside:
        num = sum((eps[i] - interp(tr, dr, t[i])) ** 2 for i in inside)
        den = sum(interp(tr, dr, t[i]) ** 2 for i in inside)
        print(f"relative L2 misfit of -dE_k/dt over t in [{t[inside[0]]:.4g}, "
              f"{t[inside[-1]]:.4g}]: {math.sqrt(num / den):.3g}")

    base = a.csv.rsplit(".csv", 1)[0]
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        out = base + "_dissipation.csv"
        with open(out, "w", newline="") as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(["t", "E_k", "dissipation"])
            for row in zip(t, ek, eps):
                w.writerow([f"{v:.17g}" for v in row])
        print(f"plot_tgv: no matplotlib; wrote {out}")
        return
    out = a.output or base + "_dissipation.png"
    fig, ax = plt.subplots(figsize=(7, 4.5))
    ax.plot(tr, dr, "k-", lw=1.2, label="spectral DNS 512$^3$ (van Rees et al. 2011)")
    ax.plot(t, eps, "-", lw=1.5, label=os.path.basename(a.csv))
    ax.set_xlabel("t")
    ax.set_ylabel("$-dE_k/dt$")
    ax.set_title("Taylor-Green vortex, Re = 1600")
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    print(f"plot_tgv: wrote {out}")


if __name__ == "__main__":
    main()
