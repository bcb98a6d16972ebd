#!/usr/bin/env python3
"""A picture of one field of a 2D dgrun snapshot (the density by default).

usage: plot_density2d.py snapshot.hdf [-o out.png] [--field rho]
                         [--width 1200] [--contours 30] [--title TEXT]

snapshot.hdf is a VTKHDF snapshot of dgrun ([output] format = vtkhdf, the
default; problems/io/OUTPUT.md): Lagrange triangles of the element's order
whose points carry the fields (PointData).  The points and cells are the
snapshot's own, through its links to <run>_mesh.hdf beside it.  Each
element is cut into the N^2 linear sub-triangles of its node lattice (found
from the nodes' barycentric coordinates, so any node order works) and the
field is drawn linearly on them: with matplotlib, tripcolor (Gouraud) under
--contours equally spaced contour lines (Woodward & Colella's 1984 figures
show 30 contours of the density); without it, numpy rasterises the same
sub-triangles into a PNG (a colour map, no axes or lines) written with zlib.
Needs numpy and h5py.
"""
import argparse
import os
import struct
import sys
import zlib

try:
    import h5py
    import numpy as np
except ImportError as e:  # pragma: no cover
    sys.exit(f"plot_density2d: needs numpy and h5py ({e})")


def read(path, field):
    with h5py.File(path, "r") as f:
        g = f["VTKHDF"]
        try:
            pts = g["Points"][...]
            con = g["Connectivity"][...]
            off = g["Offsets"][...]
        except KeyError:  # links not followed: the mesh file beside it
            base = path.rsplit("_", 1)[0] + "_mesh.hdf"
            with h5py.File(base, "r") as m:
                pts, con, off = (m["VTKHDF"][k][...] for k in ("Points", "Connectivity", "Offsets"))
        if field not in g["PointData"]:
            sys.exit(f"plot_density2d: {path} has no field {field} "
                     f"(it has {', '.join(g['PointData'].keys())})")
        val = g["PointData"][field][...]
        t = float(g["FieldData"]["time"][0]) if "time" in g.get("FieldData", {}) else None
    if val.ndim > 1:
        sys.exit(f"plot_density2d: {field} is not a scalar field")
    return pts[:, 0], pts[:, 1], con, off, val, t


def sub_triangles(x, y, con, off):
    """The linear sub-triangles of every Lagrange triangle, as point ids."""
    npc = np.diff(off)
    if not np.all(npc == npc[0]):
        sys.exit("plot_density2d: cells of mixed orders")
    npts = int(npc[0])
    N = int(round((np.sqrt(8 * npts + 1) - 3) / 2))
    if (N + 1) * (N + 2) // 2 != npts:
        sys.exit(f"plot_density2d: {npts} points a cell is not a triangle of any order")
    c = con.reshape(-1, npts)
    X, Y = x[c], y[c]
    # barycentric coordinates of each node against the first three (the vertices)
    x0, y0 = X[:, :1], Y[:, :1]
    a, b = X[:, 1:2] - x0, Y[:, 1:2] - y0
    d, e = X[:, 2:3] - x0, Y[:, 2:3] - y0
    det = a * e - b * d
    l1 = ((X - x0) * e - (Y - y0) * d) / det
    l2 = (a * (Y - y0) - b * (X - x0)) / det
    i, j = np.rint(l1 * N).astype(int), np.rint(l2 * N).astype(int)
    lut = np.full((c.shape[0], N + 1, N + 1), -1, dtype=np.int64)
    rows = np.repeat(np.arange(c.shape[0]), npts)
    lut[rows, i.ravel(), j.ravel()] = c.ravel()
    tris = []
    for p in range(N):
        for q in range(N - p):
            tris.append(np.stack([lut[:, p, q], lut[:, p + 1, q], lut[:, p, q + 1]], 1))
            if p + q < N - 1:
                tris.append(np.stack([lut[:, p + 1, q], lut[:, p + 1, q + 1], lut[:, p, q + 1]], 1))
    tris = np.concatenate(tris)
    if (tris < 0).any():
        sys.exit("plot_density2d: the nodes are not on the lattice of their triangle")
    return tris


# a perceptually ordered map (matplotlib's viridis at nine stops)
STOPS = np.array([[68, 1, 84], [71, 44, 122], [59, 81, 139], [44, 113, 142], [33, 144, 141],
                  [39, 173, 129], [92, 200, 99], [170, 220, 50], [253, 231, 37]], float)


def colour(s):
    s = np.clip(np.nan_to_num(s), 0, 1) * (len(STOPS) - 1)
    k = np.minimum(s.astype(int), len(STOPS) - 2)
    f = (s - k)[..., None]
    return ((1 - f) * STOPS[k] + f * STOPS[k + 1]).astype(np.uint8)


def write_png(path, rgb):
    h, w, _ = rgb.shape
    raw = b"".join(b"\x00" + rgb[r].tobytes() for r in range(h))

    def chunk(tag, data):
        return struct.pack(">I", len(data)) + tag + data + \
            struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF)
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
                + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def rasterise(x, y, tris, val, width):
    x0, x1, y0, y1 = x.min(), x.max(), y.min(), y.max()
    height = max(1, int(round(width * (y1 - y0) / (x1 - x0))))
    img = np.full((height, width), np.nan)
    sx, sy = (width - 1) / (x1 - x0), (height - 1) / (y1 - y0)
    px, py = (x - x0) * sx, (y1 - y) * sy  # pixel coordinates, y downwards
    for t in tris:
        tx, ty, tv = px[t], py[t], val[t]
        c0, c1 = int(np.floor(tx.min())), int(np.ceil(tx.max()))
        r0, r1 = int(np.floor(ty.min())), int(np.ceil(ty.max()))
        gx, gy = np.meshgrid(np.arange(c0, c1 + 1), np.arange(r0, r1 + 1))
        det = (ty[1] - ty[2]) * (tx[0] - tx[2]) + (tx[2] - tx[1]) * (ty[0] - ty[2])
        if det == 0:
            continue
        b0 = ((ty[1] - ty[2]) * (gx - tx[2]) + (tx[2] - tx[1]) * (gy - ty[2])) / det
        b1 = ((ty[2] - ty[0]) * (gx - tx[2]) + (tx[0] - tx[2]) * (gy - ty[2])) / det
        b2 = 1 - b0 - b1
        inside = (b0 >= -1e-9) & (b1 >= -1e-9) & (b2 >= -1e-9)
        img[gy[inside], gx[inside]] = (b0 * tv[0] + b1 * tv[1] + b2 * tv[2])[inside]
    return img


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("snapshot")
    ap.add_argument("-o", "--output", default=None)
    ap.add_argument("--field", default="rho")
    ap.add_argument("--width", type=int, default=1200)
    ap.add_argument("--contours", type=int, default=30)
    ap.add_argument("--title", default=None)
    ap.add_argument("--no-matplotlib", action="store_true", help="the numpy rasteriser")
    a = ap.parse_args()
    x, y, con, off, val, t = read(a.snapshot, a.field)
    tris = sub_triangles(x, y, con, off)
    out = a.output or os.path.splitext(a.snapshot)[0] + f"_{a.field}.png"
    lo, hi = float(val.min()), float(val.max())
    print(f"{a.snapshot}: {len(off) - 1} elements, {len(tris)} sub-triangles, t = {t}, "
          f"{a.field} in [{lo:.4g}, {hi:.4g}]")
    plt = None
    if not a.no_matplotlib:
        try:
            import matplotlib
            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
        except ImportError:
            plt = None
    if plt:
        w = (x.max() - x.min()) / (y.max() - y.min())
        fig, ax = plt.subplots(figsize=(3.2 * w, 3.6))
        tc = ax.tripcolor(x, y, tris, val, shading="gouraud", cmap="viridis")
        ax.tricontour(x, y, tris, val, levels=np.linspace(lo, hi, a.contours + 2)[1:-1],
                      colors="k", linewidths=0.4)
        ax.set_aspect("equal")
        ax.set_xlim(x.min(), x.max())
        ax.set_ylim(y.min(), y.max())
        fig.colorbar(tc, ax=ax, label=a.field, fraction=0.02, pad=0.01)
        ax.set_title(a.title or (f"{a.field} at t = {t:g}" if t is not None else a.field))
        fig.tight_layout()
        fig.savefig(out, dpi=a.width / (3.2 * w))
    else:
        img = rasterise(x, y, tris, val, a.width)
        rgb = colour((img - lo) / (hi - lo if hi > lo else 1))
        rgb[np.isnan(img)] = 255  # outside the domain: white
        write_png(out, rgb)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
