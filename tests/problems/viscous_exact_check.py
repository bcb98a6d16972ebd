#!/usr/bin/env python3
"""Independent check of the shipped second-order problems (issue 39):
problems/cases/heat1d, heat2d, heat3d, advdiff2d, burgers1d_viscous,
ns2d_mms and ns3d_mms.

The script reads the problems' own .flux and .cfg files and turns their
`exact`, `initial`, `source`, `let` and `boundary` expressions into sympy
(the subset of the flux language these use, operators/FLUX_LANGUAGE.md), so
what it checks is what ships.  The PDEs are written out here by hand, not
read from the files' rhs:

 (a) the PDE residual of the exact solution is zero: symbolically for the
     scalar problems (heat: u_t - nu lap u; advection-diffusion:
     u_t + a.grad u - nu lap u; Burgers: u_t + u u_x - nu u_xx), and for
     Navier-Stokes the file's `source` statements equal the residual of the
     compressible equations in conservative form at its exact state
     (d_t U + div(F_inviscid(U) - F_viscous(U, grad U)), the stress and the
     heat flux from the exact velocity and T = p/rho), at random points,
     with the file's params and with other ones (the sources keep gamma, Pr
     and mu as params);
 (b) `initial` equals `exact` at t = 0;
 (c) the boundary data, on every face the cfg maps to a boundary: a
     Dirichlet block's exterior u_b averages with any interior u to the exact
     value, (u + u_b)/2 = g (the LDG trace of u, common39.md), and its
     exterior gradient is the interior one; a Neumann block's exterior u is
     the interior one and its exterior gradient averages with any interior
     gradient q to a vector whose normal part is n.grad(g);
 (d) periodic boxes: the exact solution is periodic with the box's lengths;
 (e) the claims of the files' comments: the Burgers shock's tanh form, the
     advection-diffusion data at the sides, the Navier-Stokes states' bounds.

sympy and the standard library only (runs with sympy 1.11 and 1.14).
Exit status 0 when every check passes.
usage: viscous_exact_check.py [problems/cases]
"""
import os
import random
import re
import sys

import sympy as sp

T = sp.Symbol("t")
XS = sp.symbols("x_0 x_1 x_2")
NS_ = sp.symbols("n_0 n_1 n_2")
FAILS = []


def check(ok, what):
    print(("ok    " if ok else "FAIL  ") + what)
    if not ok:
        FAILS.append(what)


# ------------------------------------------------------------ reading the files

def statements(text):
    """The file's statements: a statement continues while brackets are open
    or its line ends with an operator (FLUX_LANGUAGE.md, lexical structure)."""
    out, cur, depth = [], "", 0
    for line in text.splitlines():
        line = line.split("#", 1)[0].rstrip()
        if not line.strip() and depth == 0 and not cur:
            continue
        cur = (cur + " " + line.strip()) if cur else line.strip()
        depth = cur.count("(") + cur.count("[") - cur.count(")") - cur.count("]")
        if depth > 0 or re.search(r"[-+*/^=,?:]$", cur):
            continue
        out.append(cur)
        cur = ""
    return out


def to_python(e):
    """Flux-language text -> text for sympy's parser."""
    e = re.sub(r"grad\((\w+)\)\.int", r"gradint__\1", e)
    e = re.sub(r"\b(\w+)\.int\b", r"\1__int", e)
    e = re.sub(r"\b([xn])\[(\d)\]", r"\1_\2", e)
    e = e.replace("^", "**").replace("[", "V(").replace("]", ")")
    return e


def vec(*a):
    return sp.Matrix(a)


def dot(a, b):
    return sum(a[i] * b[i] for i in range(len(a)))


class Flux:
    def __init__(self, path, dim):
        self.path, self.dim = path, dim
        self.params, self.lets, self.sec, self.bnd = {}, {}, {}, {}
        for s in statements(open(path).read()):
            kw, _, rest = s.partition(" ")
            if kw == "params":
                for name, val in re.findall(r"(\w+)\s*=\s*([^,]+)", rest):
                    self.params[name] = sp.nsimplify(float(val), rational=True)
            elif kw == "let":
                name, _, body = rest.partition("=")
                self.lets[name.strip()] = body.strip()
            elif kw in ("exact", "initial", "source", "rhs", "flux"):
                name, _, body = rest.partition("=")
                self.sec[(kw, name.strip())] = body.strip()
            elif kw == "boundary":
                name, _, body = rest.partition("{")
                assigns = {}
                for a in body.rstrip("}").split(";"):
                    lhs, _, rhs = a.partition("=")
                    assigns[lhs.strip()] = rhs.strip()
                self.bnd[name.strip()] = assigns
        self.cache = {}

    def namespace(self, text, params):
        ns = {"V": vec, "dot": dot, "pi": sp.pi, "exp": sp.exp, "sin": sp.sin,
              "cos": sp.cos, "tanh": sp.tanh, "sqrt": sp.sqrt, "abs": sp.Abs, "t": T}
        for i in range(3):
            ns["x_%d" % i], ns["n_%d" % i] = XS[i], NS_[i]
        ns["n"] = sp.Matrix(NS_[:self.dim])
        for name, v in params.items():
            ns[name] = v
        for name in set(re.findall(r"\b[A-Za-z_]\w*\b", text)):
            if name in self.lets and name not in params:
                ns[name] = self.let(name, params)
            elif name.endswith("__int"):
                ns[name] = sp.Symbol(name)
            elif name.startswith("gradint__"):
                ns[name] = sp.Matrix(sp.symbols(name + "_0:%d" % self.dim))
        return ns

    def expr(self, text, params):
        py = to_python(text)
        return sp.parse_expr(py, local_dict=self.namespace(py, params), evaluate=True)

    def let(self, name, params):
        key = (name, tuple(sorted(params.items(), key=str)))
        if key not in self.cache:
            self.cache[key] = self.expr(self.lets[name], params)
        return self.cache[key]

    def get(self, kw, field, params=None):
        return self.expr(self.sec[(kw, field)], params or self.params)


def read_cfg(path):
    cfg, sec = {}, None
    for line in open(path):
        line = line.split(";", 1)[0].strip()
        if line.startswith("["):
            sec = line.strip("[]")
        elif "=" in line:
            k, _, v = line.partition("=")
            cfg[(sec, k.strip())] = v.strip()
    return cfg


def box(cfg, dim):
    lo = [float(v) for v in cfg.get(("mesh", "lower"), "0 0 0").split()][:dim]
    hi = [float(v) for v in cfg.get(("mesh", "upper"), "1 1 1").split()][:dim]
    return lo + [0.0] * (dim - len(lo)), hi + [1.0] * (dim - len(hi))


def numeric(e, subs):
    v = complex(sp.N(e.xreplace(subs) if hasattr(e, "xreplace") else e, 20))
    return v.real


# ------------------------------------------------------------------- the checks

SIDES = ["left", "right", "bottom", "top", "front", "back"]


def boundary_checks(fx, cfg, dim, field, g):
    """(c): every boundary the cfg maps, at random points of its faces."""
    lo, hi = box(cfg, dim)
    grad_g = [sp.diff(g, XS[i]) for i in range(dim)]
    rng = random.Random(7)
    for side in SIDES[:2 * dim]:
        name = cfg.get(("boundaries", side))
        if name is None:
            continue
        ax, up = SIDES.index(side) // 2, SIDES.index(side) % 2
        b = fx.bnd[name]
        ext = fx.expr(b[field], fx.params)
        gext = fx.expr(b["grad(%s)" % field], fx.params)
        worst_u = worst_g = 0.0
        for _ in range(6):
            pt = [rng.uniform(lo[i], hi[i]) for i in range(dim)]
            pt[ax] = hi[ax] if up else lo[ax]
            nrm = [0.0] * dim
            nrm[ax] = 1.0 if up else -1.0
            uint = rng.uniform(-2, 2)
            qint = [rng.uniform(-2, 2) for _ in range(dim)]
            subs = {XS[i]: pt[i] for i in range(dim)}
            subs.update({NS_[i]: nrm[i] for i in range(dim)})
            subs[T] = rng.uniform(0, 1)
            subs[sp.Symbol(field + "__int")] = uint
            subs.update({sp.Symbol("gradint__%s_%d" % (field, i)): qint[i] for i in range(dim)})
            gv = numeric(g, subs)
            qb = [numeric(gext[i], subs) for i in range(dim)]
            ub = numeric(ext, subs)
            if name.startswith("dirichlet"):
                worst_u = max(worst_u, abs((uint + ub) / 2 - gv))
                worst_g = max(worst_g, max(abs(qb[i] - qint[i]) for i in range(dim)))
            else:
                gn = sum(nrm[i] * numeric(grad_g[i], subs) for i in range(dim))
                worst_u = max(worst_u, abs(ub - uint))
                worst_g = max(worst_g, abs(sum(nrm[i] * (qint[i] + qb[i]) / 2
                                               for i in range(dim)) - gn))
        what = ("(u + u_b)/2 = g, grad_b = grad.int" if name.startswith("dirichlet")
                else "u_b = u.int, n.(q + q_b)/2 = n.grad(g)")
        check(worst_u < 1e-12 and worst_g < 1e-12,
              "%s: %s boundary '%s': %s (worst %.1e, %.1e)"
              % (os.path.basename(fx.path), side, name, what, worst_u, worst_g))


def periodic_checks(fx, cfg, dim, exacts):
    axes = [a for a in cfg.get(("mesh", "periodic"), "none").split() if a in "xyz"]
    lo, hi = box(cfg, dim)
    rng = random.Random(3)
    for a in axes:
        i = "xyz".index(a)
        worst = 0.0
        for _ in range(5):
            subs = {XS[k]: rng.uniform(lo[k], hi[k]) for k in range(dim)}
            subs[T] = rng.uniform(0, 1)
            shifted = dict(subs)
            shifted[XS[i]] = subs[XS[i]] + hi[i] - lo[i]
            for e in exacts:
                worst = max(worst, abs(numeric(e, subs) - numeric(e, shifted)))
        check(worst < 1e-12, "%s: exact solution periodic along %s (worst %.1e)"
              % (os.path.basename(fx.path), a, worst))


def scalar_case(root, name, dim, pde):
    fx = Flux(os.path.join(root, name, name + ".flux"), dim)
    cfg = read_cfg(os.path.join(root, name, name + ".cfg"))
    g = fx.get("exact", "u")
    res = sp.simplify(pde(g, fx.params))
    check(res == 0, "%s: PDE residual of the exact solution is zero (%s)" % (name, res))
    ic = fx.get("initial", "u")
    check(sp.simplify((ic - g).subs(T, 0)) == 0, "%s: initial = exact at t = 0" % name)
    boundary_checks(fx, cfg, dim, "u", g)
    periodic_checks(fx, cfg, dim, [g])
    return fx, cfg, g


def lap(u, dim):
    return sum(sp.diff(u, XS[i], 2) for i in range(dim))


def heat(dim):
    def pde(u, p):
        return sp.diff(u, T) - p["nu"] * lap(u, dim)
    return pde


def advdiff(u, p):
    return (sp.diff(u, T) + p["ax"] * sp.diff(u, XS[0]) + p["ay"] * sp.diff(u, XS[1])
            - p["nu"] * lap(u, 2))


def burgers(u, p):
    return sp.diff(u, T) + u * sp.diff(u, XS[0]) - p["nu"] * sp.diff(u, XS[0], 2)


def claims_advdiff(fx, cfg, g):
    """The data at the sides is a few percent of the peak (the comment)."""
    lo, hi = box(cfg, 2)
    tf = float(cfg[("time", "final")])
    f = sp.lambdify((XS[0], XS[1], T), g, "math")
    side = 0.0
    for tt in (0.0, tf / 2, tf):
        for s in range(201):
            w = lo[0] + (hi[0] - lo[0]) * s / 200
            side = max(side, f(w, lo[1], tt), f(w, hi[1], tt), f(lo[0], w, tt), f(hi[0], w, tt))
    peak = f(-0.3 + 0.8 * tf, -0.2 + 0.4 * tf, tf)
    check(0.005 < side / peak < 0.1, "advdiff2d: largest Dirichlet data on the sides %.3f of "
          "the peak (a few percent: the boundary data matters, the hill stays inside)"
          % (side / peak))


def claims_burgers(fx, g):
    p = fx.params
    xi = XS[0] - p["x0"] - (p["uL"] + p["uR"]) / 2 * T
    d = p["uL"] - p["uR"]
    tanh_form = (p["uL"] + p["uR"]) / 2 - d / 2 * sp.tanh(d * xi / (4 * p["nu"]))
    diff = max(abs(numeric(g - tanh_form, {XS[0]: x, T: tt}))
               for x in (-1, -0.3, 0.2, 0.9) for tt in (0, 0.3))
    check(diff < 1e-14, "burgers1d_viscous: the exact solution equals s - (uL - uR)/2 tanh(...) "
          "(worst %.1e)" % diff)


# ------------------------------------------------------------ Navier-Stokes

def ns_residual(dim, rho, vel, p, gamma, Pr, mu):
    """The compressible Navier-Stokes residual d_t U + div(F - F_v), written
    with flux tensors (not the generator's jets): U = (rho, rho u, E)."""
    co = XS[:dim]
    E = p / (gamma - 1) + rho * sum(v * v for v in vel) / 2
    U = [rho] + [rho * v for v in vel] + [E]
    G = sp.Matrix(dim, dim, lambda i, j: sp.diff(vel[i], co[j]))   # G_ij = d_j u_i
    tau = mu * (G + G.T) - sp.Rational(2, 3) * mu * G.trace() * sp.eye(dim)
    kappa = mu * gamma / (Pr * (gamma - 1))
    Tq = p / rho
    F = []   # F[k][j]: flux of U_k along x_j
    F.append([rho * vel[j] for j in range(dim)])
    for i in range(dim):
        F.append([rho * vel[i] * vel[j] + (p if i == j else 0) - tau[i, j] for j in range(dim)])
    F.append([(E + p) * vel[j] - sum(tau[j, k] * vel[k] for k in range(dim))
              - kappa * sp.diff(Tq, co[j]) for j in range(dim)])
    return [sp.diff(U[k], T) + sum(sp.diff(F[k][j], co[j]) for j in range(dim))
            for k in range(dim + 2)]


def ns_case(root, name, dim):
    fx = Flux(os.path.join(root, name, name + ".flux"), dim)
    cfg = read_cfg(os.path.join(root, name, name + ".cfg"))
    rng = random.Random(11)
    other = dict(fx.params)
    other.update(gamma=sp.Rational(13, 10), Pr=sp.Rational(9, 10), mu=sp.Rational(1, 50))
    for params in (fx.params, other):
        gm, Pr, mu = params["gamma"], params["Pr"], params["mu"]
        rho = fx.get("exact", "rho", params)
        m = fx.get("exact", "m", params)
        E = fx.get("exact", "E", params)
        vel = [m[i] / rho for i in range(dim)]
        p = (gm - 1) * (E - rho * sum(v * v for v in vel) / 2)
        res = ns_residual(dim, rho, vel, p, gm, Pr, mu)
        src = [fx.get("source", "rho", params)]
        sm = fx.get("source", "m", params)
        src += [sm[i] for i in range(dim)] + [fx.get("source", "E", params)]
        free = set().union(*(s.free_symbols for s in src)) - set(XS[:dim]) - {T}
        check(not free, "%s: sources depend only on x, t (free: %s)" % (name, free))
        worst = scale = 0.0
        for _ in range(4):
            subs = {XS[k]: rng.random() for k in range(dim)}
            subs[T] = rng.random()
            for k in range(dim + 2):
                a, b = numeric(src[k], subs), numeric(res[k], subs)
                worst, scale = max(worst, abs(a - b)), max(scale, abs(b))
        check(worst < 1e-11 * scale,
              "%s: source = residual of the Navier-Stokes equations at the exact state "
              "(gamma %s, Pr %s, mu %s; worst %.1e of %.2f)" % (name, gm, Pr, mu, worst, scale))
        for f in ("rho", "m", "E"):
            d = (fx.get("initial", f, params) - fx.get("exact", f, params)).subs(T, 0)
            d = d if isinstance(d, sp.Matrix) else sp.Matrix([d])
            check(all(sp.simplify(c) == 0 for c in d), "%s: initial %s = exact at t = 0"
                  % (name, f))
    # the bounds the generator's comment states, at random points of the box and t
    exacts = [fx.get("exact", "rho")] + list(fx.get("exact", "m")) + [fx.get("exact", "E")]
    periodic_checks(fx, cfg, dim, exacts)
    rho, E, gm = exacts[0], exacts[-1], fx.params["gamma"]
    vel = [exacts[1 + i] / rho for i in range(dim)]
    p = (gm - 1) * (E - rho * sum(v * v for v in vel) / 2)
    args = list(XS[:dim]) + [T]
    fr, fp = sp.lambdify(args, rho, "math"), sp.lambdify(args, p, "math")
    fs = sp.lambdify(args, sp.sqrt(sum(v * v for v in vel)) + sp.sqrt(gm * p / rho), "math")
    pts = [[rng.random() for _ in range(dim + 1)] for _ in range(3000)]
    rmin = min(fr(*q) for q in pts)
    pmin = min(fp(*q) for q in pts)
    smax = max(fs(*q) for q in pts)
    ws = float(cfg[("time", "wave_speed")])
    check(rmin >= 0.8 - 1e-9 and pmin >= 0.8 - 1e-9 and smax <= min(ws, 2.12),
          "%s: rho >= 0.8 (%.3f), p >= 0.8 (%.3f), |u| + c <= 2.12 <= wave_speed %g (%.3f)"
          % (name, rmin, pmin, ws, smax))


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "..", "problems", "cases")
    for dim in (1, 2, 3):
        scalar_case(root, "heat%dd" % dim, dim, heat(dim))
    fx, cfg, g = scalar_case(root, "advdiff2d", 2, advdiff)
    claims_advdiff(fx, cfg, g)
    fx, cfg, g = scalar_case(root, "burgers1d_viscous", 1, burgers)
    claims_burgers(fx, g)
    ns_case(root, "ns2d_mms", 2)
    ns_case(root, "ns3d_mms", 3)
    print("%d check(s) failed" % len(FAILS) if FAILS else "all checks passed")
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
