#!/usr/bin/env python3
"""Plot a dgrun history CSV ([output] history) as a PNG.

usage: plot_history.py run.csv [COLUMN ...] [-o run.png] [--log] [--x t|step|wall]

The CSV is the contract (README, "Histories"): a header row, then one row
per history time with t, step, dt, wall and the run's quantities (l2_<field>,
max_<field>, the flux file's integrals).  Without COLUMNs every quantity is
drawn (all columns after wall).  --log draws the y axis on a log scale (for
errors).  A run's <history>.partial (a killed run's rows) plots the same.
Needs matplotlib (an optional dependency of dgrun; exit status 3 without it).
"""
import argparse
import csv
import sys


def read(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    if not rows:
        sys.exit(f"plot_history: {path} is empty (not a dgrun history)")
    head, body = rows[0], [r for r in rows[1:] if len(r) == len(rows[0])]
    if head[:4] != ["t", "step", "dt", "wall"]:
        sys.exit(f"plot_history: {path} does not start with the columns t,step,dt,wall")
    cols = {name: [float(r[i]) for r in body] for i, name in enumerate(head)}
    return head, cols


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("csv")
    ap.add_argument("columns", nargs="*", help="columns to draw (default: every quantity)")
    ap.add_argument("-o", "--output", help="PNG to write (default: the CSV's name with .png)")
    ap.add_argument("--log", action="store_true", help="log-scale y axis (errors)")
    ap.add_argument("--x", default="t", choices=["t", "step", "wall"], help="x axis")
    a = ap.parse_args()
    head, cols = read(a.csv)
    names = a.columns or head[4:]
    bad = [c for c in names if c not in cols]
    if bad:
        sys.exit(f"plot_history: {a.csv} has no column {', '.join(bad)}; it has "
                 f"{', '.join(head)}")
    if not names:
        sys.exit(f"plot_history: {a.csv} has no quantities to draw (only {', '.join(head)})")
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("plot_history: needs matplotlib (pip install matplotlib, or apt install "
              "python3-matplotlib)", file=sys.stderr)
        sys.exit(3)
    out = a.output or (a.csv.rsplit(".csv", 1)[0] + ".png")
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for c in names:
        y = cols[c]
        if a.log:  # (a zero, e.g. the error at t = 0, has no place on a log axis)
            xs = [x for x, v in zip(cols[a.x], y) if v > 0]
            y = [v for v in y if v > 0]
            ax.semilogy(xs, y, marker=".", label=c)
        else:
            ax.plot(cols[a.x], y, marker=".", label=c)
    ax.set_xlabel(a.x)
    ax.grid(True, alpha=0.3)
    ax.legend()
    ax.set_title(a.csv)
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    print(out)


if __name__ == "__main__":
    main()
