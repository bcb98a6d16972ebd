#!/usr/bin/env python3
"""Plot the scaling study (tests/gpu/scaling_study.sh) without third-party
packages: the GPU machines have no package registry, so the PNG is drawn
here (a small raster, zlib + struct from the standard library).

usage: plot_scaling.py scaling.csv scaling.png

Fills the efficiency/speedup column of the CSV, prints a table, and draws
two panels: weak-scaling efficiency and strong-scaling speedup against the
GPU count (log2 axis), one colour per problem, the ideal as a grey line.
"""
import csv
import math
import struct
import sys
import zlib

# 3x5 pixel font: each glyph is 5 rows of 3 bits.
FONT = {
    '0': '111101101101111', '1': '010110010010111', '2': '111001111100111',
    '3': '111001111001111', '4': '101101111001001', '5': '111100111001111',
    '6': '111100111101111', '7': '111001001001001', '8': '111101111101111',
    '9': '111101111001111', '.': '000000000000010', ' ': '000000000000000',
    '-': '000000111000000', '=': '000111000111000', ':': '000010000010000',
    '(': '010100100100010', ')': '010001001001010', '/': '001001010100100',
    'A': '010101111101101', 'B': '110101110101110', 'C': '011100100100011',
    'D': '110101101101110', 'E': '111100110100111', 'F': '111100110100100',
    'G': '011100101101011', 'H': '101101111101101', 'I': '111010010010111',
    'K': '101101110101101', 'L': '100100100100111', 'M': '101111111101101',
    'N': '110101101101101', 'O': '010101101101010', 'P': '110101110100100',
    'R': '110101110101101', 'S': '011100010001110', 'T': '111010010010010',
    'U': '101101101101111', 'W': '101101111111101', 'X': '101101010101101',
    'Y': '101101010010010', 'V': '101101101101010', 'Z': '111001010100111',
}
COLORS = [(31, 119, 180), (214, 39, 40), (44, 160, 44), (148, 103, 189)]


class Canvas:
    def __init__(self, w, h):
        self.w, self.h = w, h
        self.px = bytearray(b'\xff' * (w * h * 3))

    def set(self, x, y, c):
        if 0 <= x < self.w and 0 <= y < self.h:
            i = (y * self.w + x) * 3
            self.px[i:i + 3] = bytes(c)

    def line(self, x0, y0, x1, y1, c, width=1):
        n = max(abs(x1 - x0), abs(y1 - y0), 1)
        for s in range(n + 1):
            x = round(x0 + (x1 - x0) * s / n)
            y = round(y0 + (y1 - y0) * s / n)
            for dx in range(-(width // 2), width - width // 2):
                for dy in range(-(width // 2), width - width // 2):
                    self.set(x + dx, y + dy, c)

    def box(self, x, y, r, c):
        for dx in range(-r, r + 1):
            for dy in range(-r, r + 1):
                self.set(x + dx, y + dy, c)

    def text(self, x, y, s, c=(0, 0, 0), scale=2):
        for ch in s.upper():
            g = FONT.get(ch, FONT[' '])
            for row in range(5):
                for col in range(3):
                    if g[row * 3 + col] == '1':
                        for a in range(scale):
                            for b in range(scale):
                                self.set(x + col * scale + a, y + row * scale + b, c)
            x += 4 * scale

    def png(self, path):
        raw = b''.join(b'\x00' + bytes(self.px[y * self.w * 3:(y + 1) * self.w * 3])
                       for y in range(self.h))

        def chunk(kind, data):
            body = kind + data
            return struct.pack('>I', len(data)) + body + struct.pack('>I', zlib.crc32(body))
        with open(path, 'wb') as f:
            f.write(b'\x89PNG\r\n\x1a\n')
            f.write(chunk(b'IHDR', struct.pack('>IIBBBBB', self.w, self.h, 8, 2, 0, 0, 0)))
            f.write(chunk(b'IDAT', zlib.compress(raw, 9)))
            f.write(chunk(b'IEND', b''))


def panel(cv, x0, y0, w, h, title, series, ymax, ideal):
    """series: {problem: [(gpus, value)]}; ideal: function gpus -> value."""
    maxg = max([g for pts in series.values() for g, _ in pts] + [2])
    lg = max(1, math.ceil(math.log2(maxg)))
    def X(g):
        return x0 + int(w * math.log2(g) / lg)
    def Y(v):
        return y0 + h - int(h * min(v, ymax) / ymax)
    cv.text(x0, y0 - 24, title)
    cv.line(x0, y0 + h, x0 + w, y0 + h, (0, 0, 0))
    cv.line(x0, y0, x0, y0 + h, (0, 0, 0))
    for k in range(lg + 1):
        g = 2 ** k
        cv.line(X(g), y0 + h, X(g), y0 + h + 4, (0, 0, 0))
        cv.text(X(g) - 4, y0 + h + 8, str(g))
    for t in range(5):
        v = ymax * t / 4
        cv.line(x0 - 4, Y(v), x0, Y(v), (0, 0, 0))
        cv.line(x0 + 1, Y(v), x0 + w, Y(v), (230, 230, 230))
        cv.text(x0 - 44, Y(v) - 5, f'{v:.2f}' if ymax < 10 else f'{v:.0f}')
    prev = None
    for k in range(lg + 1):
        p = (X(2 ** k), Y(ideal(2 ** k)))
        if prev:
            cv.line(*prev, *p, (160, 160, 160))
        prev = p
    for i, (name, pts) in enumerate(sorted(series.items())):
        c = COLORS[i % len(COLORS)]
        pts = sorted(pts)
        for (g0, v0), (g1, v1) in zip(pts, pts[1:]):
            cv.line(X(g0), Y(v0), X(g1), Y(v1), c, 2)
        for g, v in pts:
            cv.box(X(g), Y(v), 3, c)
        cv.text(x0 + 10, y0 + 10 + 16 * i, name, c)
    cv.text(x0 + w // 2 - 16, y0 + h + 24, 'GPUS')


def main():
    if len(sys.argv) != 3:
        sys.exit('usage: plot_scaling.py scaling.csv scaling.png')
    rows = list(csv.DictReader(open(sys.argv[1])))
    base = {}
    for r in rows:
        if int(r['gpus']) == 1:
            base[(r['study'], r['problem'])] = float(r['dof_updates_per_s'])
    weak, strong = {}, {}
    for r in rows:
        b = base.get((r['study'], r['problem']))
        g, rate = int(r['gpus']), float(r['dof_updates_per_s'])
        if not b:
            continue
        v = rate / (g * b) if r['study'] == 'weak' else rate / b
        r['efficiency_or_speedup'] = f'{v:.3f}'
        (weak if r['study'] == 'weak' else strong).setdefault(r['problem'], []).append((g, v))
    with open(sys.argv[1], 'w', newline='') as f:
        wr = csv.DictWriter(f, fieldnames=list(rows[0].keys()) if rows else [],
                            lineterminator='\n')
        wr.writeheader()
        wr.writerows(rows)
    print(f"{'study':7} {'problem':16} {'GPUs':>4} {'DOFs':>12} {'DOF-updates/s':>14} "
          f"{'eff/speedup':>11}")
    for r in rows:
        print(f"{r['study']:7} {r['problem']:16} {r['gpus']:>4} {r['dofs']:>12} "
              f"{float(r['dof_updates_per_s']):14.3e} {r['efficiency_or_speedup']:>11}")
    maxg = max([int(r['gpus']) for r in rows] + [2])
    cv = Canvas(900, 420)
    panel(cv, 70, 50, 330, 300, 'WEAK SCALING EFFICIENCY N=4', weak, 1.2, lambda g: 1.0)
    panel(cv, 540, 50, 330, 300, 'STRONG SCALING SPEEDUP N=4', strong,
          float(max(maxg, 2)), lambda g: float(g))
    cv.png(sys.argv[2])


if __name__ == '__main__':
    main()
