#!/usr/bin/env python3
"""Independent check of the shipped material-interface problems (issue 38):
problems/cases/maxwell2d_interface and problems/cases/acoustics2d_interface.

The script reads the problems' own .flux and .cfg files and evaluates their
expressions with a small interpreter of the flux language (the subset these
files use; operators/FLUX_LANGUAGE.md), so what it checks is what ships:

 (a) the exact solution satisfies the file's volume terms on both sides of
     the interface (time derivative and the derivatives of `rhs` by
     fourth-order central differences), with the coefficients the cfg gives
     there; it is continuous at x = 0 (Ez and Hy, resp. p and v_x: the
     tangential E and H, resp. the pressure and normal velocity), equals
     `initial` at t = 0 and the `open` boundary's exterior state at x = +-1;
 (b) the numerical flux is consistent (equals the surface form of the
     volume term when int = ext and the coefficients agree) and upwind: for
     random states and coefficients on the two sides and random normals it
     equals the surface form at the interior state of the exact Riemann
     solution, found here from the physics written out by hand,
         M U_t + C(n) U_xi = 0    (M the material matrix, C(n) symmetric),
     as the interior state plus the waves leaving into the interior medium,
     the exterior state minus those leaving into the exterior medium, and
     C(n) U continuous (the interface conditions), the eigenvectors from
     numpy, not from the formulas of the flux file;
 (c) the reflection and transmission coefficients: R and T of the file
     against the 2 x 2 continuity system solved numerically, the closed form
     (Z2 - Z1)/(Z1 + Z2), 2 Z2/(Z1 + Z2), and the balance of the energy flux
     (1 - R^2)/Z1 = T^2/Z2;
 (d) a 1D nodal DG discretisation (Legendre-Gauss-Lobatto nodes, strong
     form, LSERK4; Hesthaven & Warburton 2008, Ch. 3) of the problem along x
     with the file's flux converges at order N + 1 (N = 1..4) across the
     interface, which is what problems.convergence_*_interface will assert
     of dgrun.

numpy only.  Exit status 0 when every check passes.
usage: interface_exact_check.py [problems/cases]
"""
import math
import os
import re
import sys

import numpy as np

# ---------------------------------------------------------------- lexer/parser

TOKEN = re.compile(r"\s*(?:(\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)|([A-Za-z_]\w*)"
                   r"|(<=|>=|==|!=|&&|\|\||[-+*/^()\[\],?:<>!.{};=]))")


def tokens(text):
    out, pos = [], 0
    text = text.rstrip()
    while pos < len(text):
        m = TOKEN.match(text, pos)
        if not m or m.end() == pos:
            raise SyntaxError("cannot read %r" % text[pos:])
        num, name, op = m.groups()
        out.append(("num", float(num)) if num else ("name", name) if name else ("op", op))
        pos = m.end()
    return out


class Parser:
    """Precedence climbing over the grammar of FLUX_LANGUAGE.md."""

    BIN = [("||",), ("&&",), ("<", "<=", ">", ">=", "==", "!="), ("+", "-"), ("*", "/")]

    def __init__(self, toks):
        self.t, self.i = toks, 0

    def peek(self, v=None):
        if self.i >= len(self.t):
            return None
        tok = self.t[self.i]
        return tok if v is None or tok[1] == v else None

    def eat(self, v):
        tok = self.peek(v)
        if not tok:
            raise SyntaxError("expected %r at %r" % (v, self.t[self.i:]))
        self.i += 1
        return tok

    def expr(self):
        c = self.binary(0)
        if self.peek("?"):
            self.eat("?")
            a = self.expr()
            self.eat(":")
            return ("sel", c, a, self.expr())
        return c

    def binary(self, level):
        if level == len(self.BIN):
            return self.unary()
        a = self.binary(level + 1)
        while self.peek() and self.peek()[0] == "op" and self.peek()[1] in self.BIN[level]:
            op = self.eat(self.peek()[1])[1]
            a = ("bin", op, a, self.binary(level + 1))
        return a

    def unary(self):
        for op in "-+!":
            if self.peek(op):
                self.eat(op)
                return ("un", op, self.unary())
        a = self.postfix()
        if self.peek("^"):
            self.eat("^")
            a = ("bin", "^", a, self.unary())
        return a

    def postfix(self):
        a = self.primary()
        while True:
            if self.peek("["):
                self.eat("[")
                i = self.expr()
                self.eat("]")
                a = ("index", a, int(i[1]))
            elif self.peek("."):
                self.eat(".")
                a = ("trace", a, self.eat(self.peek()[1])[1])
            else:
                return a

    def primary(self):
        kind, v = self.t[self.i]
        self.i += 1
        if kind == "num":
            return ("num", v)
        if kind == "name":
            if self.peek("("):
                self.eat("(")
                args = [] if self.peek(")") else self.list_until(")")
                return ("call", v, args)
            return ("name", v)
        if v == "(":
            e = self.expr()
            self.eat(")")
            return e
        if v == "[":
            return ("vec", self.list_until("]"))
        raise SyntaxError("unexpected %r" % v)

    def list_until(self, close):
        items = [self.expr()]
        while self.peek(","):
            self.eat(",")
            items.append(self.expr())
        self.eat(close)
        return items


def parse_expr(text):
    p = Parser(tokens(text))
    e = p.expr()
    if p.i != len(p.t):
        raise SyntaxError("junk after expression: %r" % text)
    return e


def split_top(text, sep):
    """Split at sep outside brackets."""
    parts, depth, cur = [], 0, ""
    for ch in text:
        depth += ch in "([{"
        depth -= ch in ")]}"
        if ch == sep and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    return parts + [cur]


def statements(path):
    """Logical statements: a line continues inside brackets or after an operator."""
    out, cur = [], ""
    for line in open(path, encoding="utf-8"):
        line = line.split("#", 1)[0].rstrip()
        if not line.strip():
            continue
        cur = (cur + " " + line.strip()) if cur else line.strip()
        depth = sum(cur.count(c) for c in "([{") - sum(cur.count(c) for c in ")]}")
        if depth > 0 or re.search(r"[-+*/^=,?:<>!&|(\[]$", cur):
            continue
        out.append(cur)
        cur = ""
    return out


class Flux:
    def __init__(self, path):
        self.fields, self.coefs, self.params, self.lets = [], [], {}, {}
        self.sections, self.boundaries, self.integrals = {}, {}, {}
        for st in statements(path):
            key, rest = st.split(None, 1)
            if key == "dim":
                self.dim = int(rest)
            elif key == "fields":
                for f in rest.split():
                    m = re.match(r"(\w+)(?:\[(\d+)\])?$", f)
                    self.fields.append((m.group(1), int(m.group(2) or 0)))
            elif key == "coefficients":
                self.coefs = [re.match(r"\s*(\w+)", c).group(1) for c in rest.split(",")]
            elif key == "params":
                for item in split_top(rest, ","):
                    name, e = item.split("=", 1)
                    self.params[name.strip()] = parse_expr(e)
            elif key == "let":
                name, e = rest.split("=", 1)
                self.lets[name.strip()] = parse_expr(e)
            elif key in ("rhs", "flux", "initial", "exact", "source"):
                name, e = rest.split("=", 1)
                self.sections[(key, name.strip())] = parse_expr(e)
            elif key == "boundary":
                name, body = rest.split("{", 1)
                assign = {}
                for a in split_top(body.rsplit("}", 1)[0], ";"):
                    if a.strip():
                        f, e = a.split("=", 1)
                        assign[f.strip()] = parse_expr(e)
                self.boundaries[name.strip()] = assign
            elif key == "integral":
                name, e = rest.split("=", 1)
                self.integrals[name.strip()] = parse_expr(e)
            else:
                raise SyntaxError("unknown statement %r" % key)
        env = Env(self)
        self.param_values = {}
        for name, e in self.params.items():
            self.param_values[name] = env.ev(e)


def read_cfg(path):
    cfg, sec = {}, None
    for line in open(path, encoding="utf-8"):
        line = line.strip()
        if not line or line[0] in ";#":
            continue
        if line.startswith("["):
            sec = line.strip("[]")
            cfg[sec] = {}
        else:
            k, v = line.split("=", 1)
            cfg[sec][k.strip()] = v.split(";", 1)[0].strip()
    return cfg


# ---------------------------------------------------------------- evaluation

def cross2(a, b):
    """2D cross as in FLUX_LANGUAGE.md ("cross and curl by dimension")."""
    if np.ndim(a) == 1 and np.ndim(b) == 1:
        return a[0] * b[1] - a[1] * b[0]
    if np.ndim(a) == 1:
        return np.array([a[1] * b, -a[0] * b])
    return np.array([-a * b[1], a * b[0]])


FUNCS = {"sin": math.sin, "cos": math.cos, "tan": math.tan, "exp": math.exp, "log": math.log,
         "sqrt": math.sqrt, "abs": abs, "tanh": math.tanh, "floor": math.floor,
         "atan2": math.atan2, "pow": math.pow,
         "min": lambda *a: min(a), "max": lambda *a: max(a),
         "dot": lambda a, b: float(np.dot(a, b)), "norm": lambda a: float(np.linalg.norm(a)),
         "cross": cross2}
DERIVS = ("grad", "div", "curl", "dx", "dy", "dz")


class Env:
    """x, t, n; the state and coefficients per side (None: a volume node, or
    'int' / 'ext' on a face); state_at(x) gives the state at another point
    (for the derivatives); surface = True evaluates the surface form of a
    volume term (each derivative replaced by its normal form)."""

    def __init__(self, prog, x=None, t=0.0, n=None, state=None, coef=None, state_at=None,
                 surface=False):
        self.p, self.x, self.t, self.n = prog, x, t, n
        self.state, self.coef = state or {}, coef or {}
        self.state_at, self.surface, self.side, self.in_deriv = state_at, surface, None, False

    def ev(self, e):
        k = e[0]
        if k == "num":
            return e[1]
        if k == "name":
            return self.name(e[1])
        if k == "un":
            a = self.ev(e[2])
            return -a if e[1] == "-" else a if e[1] == "+" else float(not a)
        if k == "bin":
            op = e[1]
            if op in ("&&", "||"):
                a = self.ev(e[2])
                return float(bool(a) and bool(self.ev(e[3]))) if op == "&&" else \
                    float(bool(a) or bool(self.ev(e[3])))
            a, b = self.ev(e[2]), self.ev(e[3])
            return {"+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b,
                    "/": lambda: a / b, "^": lambda: a ** b, "<": lambda: float(a < b),
                    "<=": lambda: float(a <= b), ">": lambda: float(a > b),
                    ">=": lambda: float(a >= b), "==": lambda: float(a == b),
                    "!=": lambda: float(a != b)}[op]()
        if k == "sel":
            return self.ev(e[2]) if self.ev(e[1]) else self.ev(e[3])
        if k == "vec":
            return np.array([self.ev(a) for a in e[1]])
        if k == "index":
            return self.ev(e[1])[e[2]]
        if k == "trace":
            return self.at_side(e[2], e[1])
        if k == "call":
            f, args = e[1], e[2]
            if f == "avg":
                return 0.5 * (self.at_side("int", args[0]) + self.at_side("ext", args[0]))
            if f == "jump":
                return self.at_side("int", args[0]) - self.at_side("ext", args[0])
            if f in DERIVS:
                return self.deriv(f, args[0])
            return FUNCS[f](*[self.ev(a) for a in args])
        raise ValueError(k)

    def at_side(self, side, e):
        old, self.side = self.side, side
        try:
            return self.ev(e)
        finally:
            self.side = old

    def name(self, s):
        if s == "pi":
            return math.pi
        if s == "x":
            return self.x
        if s == "t":
            return self.t
        if s == "n":
            return self.n
        if s in self.p.lets:  # a let of fields read on the current side
            return self.ev(self.p.lets[s])
        if s in dict(self.p.fields):
            if self.surface and not self.in_deriv:
                raise ValueError("a pointwise term in a volume term: its surface form is 0")
            return self.state[self.side][s]
        if s in self.p.coefs:
            return self.coef[self.side][s]
        if hasattr(self.p, "param_values") and s in self.p.param_values:
            return self.p.param_values[s]
        return self.ev(self.p.params[s])

    def partial(self, g, j):
        """d/dx_j of the pointwise g by the fourth-order central difference,
        the state from state_at(x), the coefficients held (an element's)."""
        h, x0, st0 = 1e-3, self.x, self.state
        vals = []
        for d in (-2, -1, 1, 2):
            self.x = x0 + d * h * np.eye(len(x0))[j]
            self.state = {None: self.state_at(self.x, self.t)}
            vals.append(self.ev(g))
        self.x, self.state = x0, st0
        return (vals[0] - 8 * vals[1] + 8 * vals[2] - vals[3]) / (12 * h)

    def deriv(self, f, g):
        self.in_deriv = True
        try:
            if self.surface:  # the normal form on the interior trace
                n, val = self.n, self.at_side("int", g)
                return {"grad": lambda: n * val, "div": lambda: float(np.dot(n, val)),
                        "curl": lambda: cross2(n, val), "dx": lambda: n[0] * val,
                        "dy": lambda: n[1] * val, "dz": lambda: n[2] * val}[f]()
            d = lambda j: self.partial(g, j)
            if f in ("dx", "dy", "dz"):
                return d("xyz".index(f[1]))
            if f == "grad":
                return np.array([d(0), d(1)])
            if f == "div":
                return self.partial(("index", g, 0), 0) + self.partial(("index", g, 1), 1)
            if f == "curl":
                v = self.ev(g)
                if np.ndim(v) == 0:
                    return np.array([d(1), -d(0)])
                return self.partial(("index", g, 1), 0) - self.partial(("index", g, 0), 1)
        finally:
            self.in_deriv = False
        raise ValueError(f)


# ---------------------------------------------------------------- a problem

class Problem:
    def __init__(self, folder, name):
        self.name = name
        self.prog = Flux(os.path.join(folder, name, name + ".flux"))
        self.cfg = read_cfg(os.path.join(folder, name, name + ".cfg"))
        self.regions = {k: parse_expr(v) for k, v in self.cfg.get("regions", {}).items()}

    def coefs_at(self, x):
        """[coefficients]: the default, overridden in the region whose
        predicate holds (here at the point itself, away from the interface,
        which is where the centroid's region is too)."""
        env, out = Env(self.prog, x=x), {}
        c = self.cfg["coefficients"]
        for name in self.prog.coefs:
            out[name] = env.ev(parse_expr(c[name]))
            for r, pred in self.regions.items():
                if name + "." + r in c and env.ev(pred):
                    out[name] = env.ev(parse_expr(c[name + "." + r]))
        return out

    def ncomp(self, f):
        return max(dict(self.prog.fields)[f], 1)

    def section(self, kind, x, t):
        env = Env(self.prog, x=x, t=t)
        return {f: env.ev(self.prog.sections[(kind, f)]) for f, _ in self.prog.fields}

    def vec(self, state):
        return np.concatenate([np.atleast_1d(state[f]) for f, _ in self.prog.fields])

    def unvec(self, u):
        out, i = {}, 0
        for f, k in self.prog.fields:
            out[f] = u[i] if k == 0 else np.array(u[i:i + k])
            i += max(k, 1)
        return out

    def rhs(self, x, t, state_at):
        env = Env(self.prog, x=x, t=t, state={None: state_at(x, t)},
                  coef={None: self.coefs_at(x)}, state_at=state_at)
        return self.vec({f: env.ev(self.prog.sections[("rhs", f)]) for f, _ in self.prog.fields})

    def surface(self, u, coef, n):
        # the factors of the derivatives (1/eps) are the interior element's
        env = Env(self.prog, x=np.zeros(2), t=0.0, n=n, state={"int": self.unvec(u)},
                  coef={"int": coef, None: coef}, surface=True)
        return self.vec({f: env.ev(self.prog.sections[("rhs", f)]) for f, _ in self.prog.fields})

    def flux(self, ui, ue, ci, ce, n):
        env = Env(self.prog, x=np.zeros(2), t=0.0, n=n,
                  state={"int": self.unvec(ui), "ext": self.unvec(ue)},
                  coef={"int": ci, "ext": ce})
        return self.vec({f: env.ev(self.prog.sections[("flux", f)]) for f, _ in self.prog.fields})


# The physics by hand, M U_t + C(n) U_xi = 0 along xi = n.x (U in the order of
# the files' fields), and the values the problems are meant to have.
def maxwell_mc(c, n):   # U = (Hx, Hy, Ez): mu H_t = -curl Ez, eps Ez_t = curl H
    M = np.diag([c["mu"], c["mu"], c["eps"]])
    C = np.array([[0, 0, n[1]], [0, 0, -n[0]], [n[1], -n[0], 0]], float)
    return M, C


def acoustics_mc(c, n):  # U = (p, vx, vy): p_t/K + div v = 0, rho v_t + grad p = 0
    K = c["rho"] * c["c"] ** 2
    M = np.diag([1 / K, c["rho"], c["rho"]])
    C = np.array([[0, n[0], n[1]], [n[0], 0, 0], [n[1], 0, 0]], float)
    return M, C


CASES = {
    "maxwell2d_interface": dict(
        mc=maxwell_mc, coef=("eps", "mu"), Z=lambda c: math.sqrt(c["mu"] / c["eps"]),
        speed=lambda c: 1 / math.sqrt(c["eps"] * c["mu"]), R=-0.2, T=0.8,
        cont=(1, 2),  # Hy and Ez: the tangential H and E
        energy=lambda u, c: 0.5 * (c["eps"] * u[2] ** 2 + c["mu"] * (u[0] ** 2 + u[1] ** 2))),
    "acoustics2d_interface": dict(
        mc=acoustics_mc, coef=("rho", "c"), Z=lambda c: c["rho"] * c["c"],
        speed=lambda c: c["c"], R=0.2, T=1.2, cont=(0, 1),  # p and the normal v
        energy=lambda u, c: 0.5 * (u[0] ** 2 / (c["rho"] * c["c"] ** 2)
                                   + c["rho"] * (u[1] ** 2 + u[2] ** 2))),
}

failures = 0


def check(ok, what):
    global failures
    print(("ok   " if ok else "FAIL ") + what)
    failures += not ok


def exact_fn(pb):
    return lambda x, t: pb.section("exact", x, t)


# ---------------------------------------------------------------- (a)

def check_exact(pb, case, rng):
    ex = exact_fn(pb)
    worst, scale = 0.0, 0.0
    for side in (-1, 1):
        for _ in range(12):
            x = np.array([side * rng.uniform(0.05, 0.95), rng.uniform(0, 1)])
            t = rng.uniform(0, 1)
            h = 1e-3
            ut = (pb.vec(ex(x, t - 2 * h)) - 8 * pb.vec(ex(x, t - h)) + 8 * pb.vec(ex(x, t + h))
                  - pb.vec(ex(x, t + 2 * h))) / (12 * h)
            r = pb.rhs(x, t, ex)
            worst = max(worst, np.max(np.abs(ut - r)))
            scale = max(scale, np.max(np.abs(ut)))
    # fourth-order differences with h = 1e-3 of sin(w x / c), w / c <= 4 pi:
    # truncation ~ h^4 (4 pi)^5 / 30 ~ 1e-8 against derivatives of size ~ 10
    check(worst < 1e-6 * scale and scale > 1,
          "%s: exact solution satisfies the volume terms on both sides (max residual %.1e, "
          "|du/dt| up to %.1f)" % (pb.name, worst, scale))
    jumps, init, bnd = 0.0, 0.0, 0.0
    for t in np.linspace(0, 1, 7):
        y = rng.uniform(0, 1)
        a, b = pb.vec(ex(np.array([-1e-12, y]), t)), pb.vec(ex(np.array([1e-12, y]), t))
        jumps = max(jumps, np.max(np.abs((a - b)[list(case["cont"])])))
        for xb in (-1.0, 1.0):
            xv = np.array([xb, y])
            env = Env(pb.prog, x=xv, t=t, n=np.array([xb, 0.0]),
                      state={"int": pb.unvec(pb.vec(ex(xv, t)))})
            ext = pb.vec({f: env.ev(e) for f, e in pb.prog.boundaries["open"].items()})
            bnd = max(bnd, np.max(np.abs(ext - pb.vec(ex(xv, t)))))
    for _ in range(8):
        x = np.array([rng.uniform(-1, 1), rng.uniform(0, 1)])
        init = max(init, np.max(np.abs(pb.vec(pb.section("initial", x, 0.0))
                                       - pb.vec(ex(x, 0.0)))))
    comps = [f + ("[%d]" % i if k else "") for f, k in pb.prog.fields for i in range(max(k, 1))]
    names = " and ".join(comps[i] for i in case["cont"])
    check(jumps < 1e-10, "%s: exact solution continuous at x = 0 in %s "
          "(max jump %.1e)" % (pb.name, names, jumps))
    check(init < 1e-14, "%s: initial = exact at t = 0 (max diff %.1e)" % (pb.name, init))
    check(bnd < 1e-14, "%s: boundary 'open' gives the exact solution at x = +-1 "
          "(max diff %.1e)" % (pb.name, bnd))


# ---------------------------------------------------------------- (b)

def riemann_interior(case, ui, ue, ci, ce, n):
    """The interior state at the interface of the exact Riemann solution
    between medium ci (xi < 0, state ui) and medium ce (xi > 0, state ue)."""
    Mi, Ci = case["mc"](ci, n)
    Me, Ce = case["mc"](ce, n)
    li, ri = np.linalg.eig(np.linalg.solve(Mi, Ci))  # U_t + M^-1 C U_xi = 0
    le, re_ = np.linalg.eig(np.linalg.solve(Me, Ce))
    into_i = ri[:, li.real < -1e-12].real  # waves leaving into the interior
    into_e = re_[:, le.real > 1e-12].real  # and into the exterior
    # u*_i = ui + into_i a, u*_e = ue - into_e b, C u*_i = C u*_e
    A = np.hstack([Ci @ into_i, Ce @ into_e])
    ab, *_ = np.linalg.lstsq(A, Ce @ ue - Ci @ ui, rcond=None)
    resid = np.linalg.norm(A @ ab - (Ce @ ue - Ci @ ui))
    return ui + into_i @ ab[:into_i.shape[1]], resid


def random_coef(case, rng):
    return {k: rng.uniform(0.3, 3.0) for k in case["coef"]}


def check_flux(pb, case, rng):
    cons, phys, up, cons_scale, up_scale, resid_max, swap = 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0
    for _ in range(200):
        a = rng.uniform(0, 2 * math.pi)
        n = np.array([math.cos(a), math.sin(a)])
        u, c = rng.normal(size=3), random_coef(case, rng)
        f, s = pb.flux(u, u, c, c, n), pb.surface(u, c, n)
        cons = max(cons, np.max(np.abs(f - s)))
        cons_scale = max(cons_scale, np.max(np.abs(s)))
        M, C = case["mc"](c, n)
        phys = max(phys, np.max(np.abs(s + np.linalg.solve(M, C @ u))))
        ui, ue = rng.normal(size=3), rng.normal(size=3)
        ci, ce = random_coef(case, rng), random_coef(case, rng)
        ustar, resid = riemann_interior(case, ui, ue, ci, ce, n)
        resid_max = max(resid_max, resid)
        want = pb.surface(ustar, ci, n)
        up = max(up, np.max(np.abs(pb.flux(ui, ue, ci, ce, n) - want)))
        up_scale = max(up_scale, np.max(np.abs(want)))
        # the exterior side's view (the same face from the neighbour)
        ustar_e, _ = riemann_interior(case, ue, ui, ce, ci, -n)
        swap = max(swap, np.max(np.abs(pb.flux(ue, ui, ce, ci, -n)
                                       - pb.surface(ustar_e, ce, -n))))
    check(phys < 1e-12 * cons_scale,
          "%s: surface form of the volume terms = -M^-1 C(n) U of the physics "
          "(max diff %.1e)" % (pb.name, phys))
    check(cons < 1e-12 * cons_scale,
          "%s: flux consistent, = surface form at int = ext, equal coefficients "
          "(max diff %.1e, 200 states and normals)" % (pb.name, cons))
    check(resid_max < 1e-10, "%s: Riemann problem solvable with the interface conditions "
          "(residual %.1e)" % (pb.name, resid_max))
    check(up < 1e-12 * up_scale and swap < 1e-12 * up_scale,
          "%s: flux = surface form at the exact Riemann solution's interior state "
          "(max diff %.1e, from the exterior %.1e; 200 states, media, normals)"
          % (pb.name, up, swap))


# ---------------------------------------------------------------- (c)

def check_rt(pb, case):
    c1, c2 = pb.coefs_at(np.array([-0.5, 0.5])), pb.coefs_at(np.array([0.5, 0.5]))
    Z1, Z2 = case["Z"](c1), case["Z"](c2)
    # incident 1 + reflected R = transmitted T in the continuous field q, and
    # (1 - R)/Z1 = T/Z2 in the other one (each wave's ratio of the two is Z)
    R, T = np.linalg.solve(np.array([[1.0, -1.0], [-1.0 / Z1, -1.0 / Z2]]),
                           np.array([-1.0, -1.0 / Z1]))
    env = Env(pb.prog, x=np.zeros(2))
    Rf, Tf = env.ev(pb.prog.lets["R"]), env.ev(pb.prog.lets["T"])
    check(abs(R - case["R"]) < 1e-14 and abs(T - case["T"]) < 1e-14
          and abs(R - (Z2 - Z1) / (Z1 + Z2)) < 1e-14 and abs(T - 2 * Z2 / (Z1 + Z2)) < 1e-14,
          "%s: R = %.6g, T = %.6g from the continuity system (cfg media Z1 = %g, Z2 = %g)"
          % (pb.name, R, T, Z1, Z2))
    check(abs(Rf - R) < 1e-14 and abs(Tf - T) < 1e-14,
          "%s: the flux file's R = %.6g, T = %.6g agree (its params match the cfg's media)"
          % (pb.name, Rf, Tf))
    check(abs((1 - R * R) / Z1 - T * T / Z2) < 1e-14,
          "%s: energy flux balance (1 - R^2)/Z1 = T^2/Z2 = %.6g" % (pb.name, T * T / Z2))
    # the integral of the energy density is the physical one
    rng = np.random.default_rng(5)
    worst = 0.0
    for _ in range(20):
        u, c = rng.normal(size=3), random_coef(case, rng)
        env = Env(pb.prog, x=np.zeros(2), state={None: pb.unvec(u)}, coef={None: c})
        worst = max(worst, abs(env.ev(pb.prog.integrals["energy"]) - case["energy"](u, c)))
    check(worst < 1e-13, "%s: integral energy is the physical energy density (max diff %.1e)"
          % (pb.name, worst))


# ---------------------------------------------------------------- (d)

def lgl(N):
    """Legendre-Gauss-Lobatto nodes, the Vandermonde matrix of the normalised
    Legendre polynomials and the differentiation matrix (H&W Sec. 3.2)."""
    P = np.polynomial.legendre
    r = np.concatenate([[-1.0], np.sort(P.legroots(P.legder([0] * N + [1]))), [1.0]])
    V = np.stack([P.legval(r, [0] * j + [1]) * math.sqrt((2 * j + 1) / 2)
                  for j in range(N + 1)], axis=1)
    Vr = np.stack([P.legval(r, P.legder([0] * j + [1])) * math.sqrt((2 * j + 1) / 2)
                   for j in range(N + 1)], axis=1)
    return r, V, Vr @ np.linalg.inv(V)


# LSERK4 (Carpenter & Kennedy 1994), the table of dg/timestep.c
RK4A = [0.0, -567301805773.0 / 1357537059087.0, -2404267990393.0 / 2016746695238.0,
        -3550918686646.0 / 2091501179385.0, -1275806237668.0 / 842570457699.0]
RK4C = [0.0, 1432997174477.0 / 9575080441755.0, 2526269341429.0 / 6820363962896.0,
        2006345519317.0 / 3224310063776.0, 2802321613138.0 / 2924317926251.0]
RK4B = [1432997174477.0 / 9575080441755.0, 5161836677717.0 / 13612068292357.0,
        1720146321549.0 / 2090206949498.0, 3134564353537.0 / 4481467310338.0,
        2277821191437.0 / 14882151754819.0]


def dg1d_error(pb, speed, N, K, tf):
    """L2 error at tf of a 1D nodal DG run along x on [-1, 1] (K elements, the
    interface a node), with the flux file's rhs factors (read off its surface
    form) and numerical flux, normals +-e_x, the open boundary's exterior the
    exact solution.  The field y components of the 2D problem stay zero."""
    r, V, Dr = lgl(N)
    xv = np.linspace(-1, 1, K + 1)
    h = xv[1] - xv[0]
    X = xv[:-1, None] + (r[None, :] + 1) * h / 2  # K x Np
    coef = [pb.coefs_at(np.array([0.5 * (xv[k] + xv[k + 1]), 0.5])) for k in range(K)]
    # U_t = A_k U_x on element k: the surface form is the volume term with
    # each derivative replaced by n, so A_k U is it at n = e_x
    A = []
    for k in range(K):
        cols = [pb.surface(e, coef[k], np.array([1.0, 0.0])) for e in np.eye(3)]
        A.append(np.array(cols).T)
    ex = exact_fn(pb)
    U = np.array([[pb.vec(ex(np.array([x, 0.5]), 0.0)) for x in row] for row in X])  # K Np 3
    Minv = V @ V.T  # inverse mass matrix on the reference element
    lift = Minv[:, [0, -1]]

    def rhs(U, t):
        out = np.empty_like(U)
        for k in range(K):
            du = (2 / h) * np.einsum("ij,jc->ic", Dr, U[k]) @ A[k].T
            corr = np.zeros((2, 3))
            for face, (node, nx) in enumerate(((0, -1.0), (-1, 1.0))):
                n = np.array([nx, 0.0])
                ui = U[k, node]
                nb = k - 1 if nx < 0 else k + 1
                if 0 <= nb < K:
                    ue, ce = U[nb, -1 if nx < 0 else 0], coef[nb]
                else:
                    xb = np.array([X[k, node], 0.5])
                    env = Env(pb.prog, x=xb, t=t, n=n, state={"int": pb.unvec(ui)})
                    ue = pb.vec({f: env.ev(e) for f, e in pb.prog.boundaries["open"].items()})
                    ce = coef[k]
                corr[face] = pb.flux(ui, ue, coef[k], ce, n) - pb.surface(ui, coef[k], n)
            out[k] = du + (2 / h) * lift @ corr  # LIFT Fscale (flux - surface)
        return out

    cmax = max(speed(c) for c in coef)
    steps = int(math.ceil(tf / (0.5 * h / (cmax * (N + 1) ** 2))))
    dt, t, res = tf / steps, 0.0, np.zeros_like(U)
    for _ in range(steps):
        for s in range(5):
            res = RK4A[s] * res + dt * rhs(U, t + RK4C[s] * dt)
            U = U + RK4B[s] * res
        t += dt
    # the error by N + 3 point Gauss quadrature (exact to degree 2N + 5)
    g, w = np.polynomial.legendre.leggauss(N + 3)
    P = np.polynomial.legendre
    Vg = np.stack([P.legval(g, [0] * j + [1]) * math.sqrt((2 * j + 1) / 2)
                   for j in range(N + 1)], axis=1) @ np.linalg.inv(V)
    err = 0.0
    for k in range(K):
        ug = Vg @ U[k]
        xg = xv[k] + (g + 1) * h / 2
        eg = np.array([pb.vec(ex(np.array([x, 0.5]), tf)) for x in xg])
        err += np.sum(w[:, None] * (ug - eg) ** 2) * h / 2
    return math.sqrt(err)


# the orders and sizes of problems.convergence_*_interface
# (tests/problems/CMakeLists.txt): K elements along x = the cells along x
DG_RUNS = [(N, (16, 32)) for N in (1, 2, 3, 4)]


def check_dg(pb, case, quick):
    # the time stepper's coefficients integrate u' = 1 exactly (consistency)
    y, res = 0.0, 0.0
    for s in range(5):
        res = RK4A[s] * res + 1.0
        y += RK4B[s] * res
    check(abs(y - 1) < 1e-14, "LSERK4 coefficients consistent (u' = 1: %.1e)" % (y - 1))
    for N, (k1, k2) in DG_RUNS[:2] if quick else DG_RUNS:
        e1 = dg1d_error(pb, case["speed"], N, k1, 0.25)
        e2 = dg1d_error(pb, case["speed"], N, k2, 0.25)
        rate = math.log(e1 / e2) / math.log(k2 / k1)
        check(rate >= N + 0.7, "%s: 1D DG across the interface, N = %d, %d -> %d elements: "
              "L2 %.3e -> %.3e, rate %.2f (need >= %.1f)" % (pb.name, N, k1, k2, e1, e2, rate,
                                                            N + 0.7))


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    folder = args[0] if args else os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                               "..", "..", "problems", "cases")
    quick = "--quick" in sys.argv
    rng = np.random.default_rng(38)
    for name, case in CASES.items():
        pb = Problem(folder, name)
        check_exact(pb, case, rng)
        check_flux(pb, case, rng)
        check_rt(pb, case)
        if "--no-dg" not in sys.argv:
            check_dg(pb, case, quick)
    print("%d failed" % failures)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
