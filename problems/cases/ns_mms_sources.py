#!/usr/bin/env python3
"""Write problems/cases/ns2d_mms/ns2d_mms.flux and ns3d_mms/ns3d_mms.flux:
compressible Navier-Stokes on a periodic box with a manufactured solution
(Roache 2002; Salari & Knupp 2000) and the source terms that make it exact.

    python3 problems/cases/ns_mms_sources.py      (sympy >= 1.10)

The sources are the residual of the equations, in conservative form, at the
manufactured primitive state (rho, u, v, [w], p):

    S_rho = d_t rho + d_j(rho u_j)
    S_m_i = d_t(rho u_i) + d_j(rho u_i u_j + p delta_ij - tau_ij)
    S_E   = d_t E + d_j((E + p) u_j - tau_jk u_k - kappa d_j T)

with tau_ij = mu (d_j u_i + d_i u_j) - 2/3 mu delta_ij d_k u_k, T = p/rho
(R = 1), kappa = mu gamma/(Pr (gamma - 1)), E = p/(gamma - 1) + rho |u|^2/2:
the equations of the flux files' rhs.  They are derived on the *jets* of the
primitive variables (each variable and its partial derivatives is a symbol),
so the source text reads as the equations do, in terms of lets erho, erho_x,
eu_xy, ... that this script writes from the manufactured functions.  gamma,
Pr and mu stay symbols (params of the flux file, so a cfg may override them).
tests/problems/viscous_exact_check.py checks the written files independently.
"""
import os
import re
import sympy as sp
from sympy.printing.precedence import precedence
from sympy.printing.str import StrPrinter

HERE = os.path.dirname(os.path.abspath(__file__))
t = sp.Symbol("t")
X = sp.symbols("x y z")
gamma, Pr, mu = sp.symbols("gamma Pr mu", positive=True)

# The manufactured primitive states: smooth, periodic with period 1 in every
# direction, time-dependent, far from vacuum (rho >= 0.8, p >= 0.8) and
# subsonic (|u| + c <= 2.12), in 3D every variable depending on every coordinate.
# Written in the flux language's syntax (x[0] ... as x, y, z).
SOLUTION = {
    2: {"rho": "1 + 0.2*sin(2*pi*(x - t))*cos(2*pi*y)",
        "u": "0.5 + 0.2*cos(2*pi*x)*sin(2*pi*(y - t))",
        "v": "-0.3 + 0.2*sin(2*pi*(x + t))*cos(2*pi*y)",
        "p": "1 + 0.2*cos(2*pi*(x + y - t))"},
    3: {"rho": "1 + 0.2*sin(2*pi*(x - t))*cos(2*pi*y)*cos(2*pi*z)",
        "u": "0.5 + 0.2*cos(2*pi*x)*sin(2*pi*(y - t))*cos(2*pi*z)",
        "v": "-0.3 + 0.2*sin(2*pi*(x + t))*cos(2*pi*y)*sin(2*pi*z)",
        "w": "0.2 + 0.2*cos(2*pi*x)*cos(2*pi*(y + z - t))",
        "p": "1 + 0.2*cos(2*pi*(x + y + z - t))"},
}


def solution(dim):
    loc = {"x": X[0], "y": X[1], "z": X[2], "t": t}
    return {v: sp.sympify(e, locals=loc, rational=True) for v, e in SOLUTION[dim].items()}


def flux_text(e):
    """A SOLUTION string with x, y, z written x[0], x[1], x[2]."""
    return re.sub(r"\b([xyz])\b", lambda m: "x[%d]" % "xyz".index(m.group(1)), e)


class FluxPrinter(StrPrinter):
    """sympy -> the flux language: x[0] for x, ^ for powers."""

    def _print_Symbol(self, s):
        return {"x": "x[0]", "y": "x[1]", "z": "x[2]"}.get(s.name, s.name)

    def _print_Pow(self, e, rational=False):
        b, p = e.as_base_exp()
        if p == sp.S.Half:
            return "sqrt(%s)" % self._print(b)
        if p.is_Number and p < 0:
            return "1/%s" % self.parenthesize(b ** (-p), precedence(e) + 1)
        return "%s^%s" % (self.parenthesize(b, precedence(e), strict=True),
                          self.parenthesize(p, precedence(e), strict=True))


def fx(e):
    return FluxPrinter().doprint(e)


def jet_name(var, idx):
    """erho, eu_x, ev_xy, ep_t: the variable var differentiated along idx."""
    return "e" + var + ("_" + "".join(idx) if idx else "")


def residual(dim):
    """The sources as functions of the primitive jets (jet symbols)."""
    co = list(X[:dim])
    names = ["rho", "u", "v", "w"][: dim + 1] + ["p"]
    F = {v: sp.Function(v.upper())(*co, t) for v in names}
    rho, p = F["rho"], F["p"]
    vel = [F[v] for v in ["u", "v", "w"][:dim]]
    kappa = mu * gamma / (Pr * (gamma - 1))
    T = p / rho
    E = p / (gamma - 1) + rho * sum(c * c for c in vel) / 2
    divu = sum(sp.diff(vel[k], co[k]) for k in range(dim))
    tau = [[mu * (sp.diff(vel[i], co[j]) + sp.diff(vel[j], co[i]))
            - (sp.Rational(2, 3) * mu * divu if i == j else 0) for j in range(dim)]
           for i in range(dim)]
    S = [sp.diff(rho, t) + sum(sp.diff(rho * vel[j], co[j]) for j in range(dim))]
    for i in range(dim):
        S.append(sp.diff(rho * vel[i], t) + sum(
            sp.diff(rho * vel[i] * vel[j] + (p if i == j else 0) - tau[i][j], co[j])
            for j in range(dim)))
    S.append(sp.diff(E, t) + sum(
        sp.diff((E + p) * vel[j] - sum(tau[j][k] * vel[k] for k in range(dim))
                - kappa * sp.diff(T, co[j]), co[j]) for j in range(dim)))
    # replace every derivative of a primitive and then the primitives by jets
    axis = {c: c.name for c in co}
    axis[t] = "t"
    jets = {}
    for s in S:
        for d in s.atoms(sp.Derivative):
            var = d.expr.func.__name__.lower()
            idx = sorted((axis[v] for v, k in d.variable_count for _ in range(k)),
                         key="txyz".index)
            jets[d] = sp.Symbol(jet_name(var, idx))
    S = [s.xreplace(jets) for s in S]
    S = [s.xreplace({F[v]: sp.Symbol(jet_name(v, [])) for v in names}) for s in S]
    return S


def physics(dim):
    """The equations (common39.md's Navier-Stokes in the flux language)."""
    eye = "[%s]" % ", ".join("[%s]" % ", ".join("1" if i == j else "0" for j in range(dim))
                             for i in range(dim))
    rows = (",\n" + " " * 14).join(
        "m[%d]*u + [%s]" % (i, ", ".join("p" if i == j else "0" for j in range(dim)))
        for i in range(dim))
    return """\
dim %d
fields rho m[%d] E
params gamma = 1.4, Pr = 0.72, mu = 0.05, tau = 0.1

# the flow: primitive u and T = p/rho (R = 1), whose gradients pass 1 lifts
# (as FLEXI and PyFR do), the viscous stress S and kappa*grad(T)
let irho = 1/rho
let u = m*irho
let p = (gamma - 1)*(E - 0.5*dot(m, u))
let T = p*irho
let c = sqrt(gamma*p*irho)
let S = mu*(grad(u) + transpose(grad(u))) -
        2/3*mu*trace(grad(u))*%s
let qh = mu*gamma/(Pr*(gamma - 1))*grad(T)
rhs rho = -div(m)
rhs m = -div([%s] - S)
rhs E = -div((E + p)*u - dot(S, u) - qh)
""" % (dim, dim, eye, rows)


FLUXES = """
# Rusanov for the inviscid part (lam the largest |u.n| + c of the two sides),
# the LDG viscous flux ldg(F_v).n, and tau*jump of every conserved variable
# (PyFR's navier-stokes interface flux with ldg-beta, ldg-tau)
let un = dot(u, n)
let lam = max(abs(un.int) + c.int, abs(un.ext) + c.ext)
flux rho = -(avg(rho*un) + lam/2*jump(rho)) - tau*jump(rho)
flux m = -(avg(m*un + p*n) + lam/2*jump(m)) + dot(ldg(S), n) - tau*jump(m)
flux E = -(avg((E + p)*un) + lam/2*jump(E)) + dot(ldg(dot(S, u) + qh), n) - tau*jump(E)
"""


def header(dim):
    lines = ["# Generated by problems/cases/ns_mms_sources.py: edit that and run it.",
             "#",
             "# Compressible Navier-Stokes in %dD (conserved rho, m = rho*u, E; ideal gas" % dim,
             "# with R = 1, T = p/rho; constant mu, kappa = mu*gamma/(Pr*(gamma - 1))) by",
             "# Rusanov + LDG (Cockburn & Shu 1998; Bassi & Rebay 1997 for the lifted",
             "# primitive gradients), with a manufactured solution (Roache 2002): on the",
             "# periodic unit %s the primitive state" % ("square" if dim == 2 else "cube")]
    for v, e in SOLUTION[dim].items():
        lines.append("#     %-3s = %s" % (v, flux_text(e)))
    lines += [
        "# is exact with the sources below, the residual of the equations at it",
        "# (derived with sympy on the jets of the primitive variables; the lets e*",
        "# are the state and its partial derivatives, z* common factors).",
        "#",
        "# Scheme parameters: ldg_beta 0.5 (the default) and tau = 0.1, PyFR's",
        "# ldg-beta and ldg-tau for Navier-Stokes (the penalty is O(1) in the",
        "# conserved variables, beside the Rusanov dissipation lam/2); mu = 0.05 on a",
        "# box of length 1 (a Reynolds number ~ 10 per wavelength) makes the viscous",
        "# terms 30 to 70 % (rms) of the momentum and energy sources, so a wrong",
        "# viscous flux shows.",
    ]
    return "\n".join(lines) + "\n"


def mms_section(dim):
    sol = solution(dim)
    S = residual(dim)
    used = set().union(*(s.free_symbols for s in S))
    out = ["", "# the manufactured state and its partial derivatives"]
    axis = {"t": t, "x": X[0], "y": X[1], "z": X[2]}
    for v, f in sol.items():
        for idx in [[], ["t"]] + [[a] for a in "xyz"[:dim]] + [
                [a, b] for i, a in enumerate("xyz"[:dim]) for b in "xyz"[i:dim]]:
            name = jet_name(v, idx)
            if idx and sp.Symbol(name) not in used:
                continue
            d = f
            for a in idx:
                d = sp.diff(d, axis[a])
            out.append("let %s = %s" % (name, fx(d)))
    reps, red = sp.cse(S, symbols=sp.numbered_symbols("z"), optimizations="basic")
    out.append("")
    out.append("# the sources: the residual of the equations at the manufactured state")
    for s, e in reps:
        out.append("let %s = %s" % (s, fx(e)))
    vel = ["u", "v", "w"][:dim]
    out.append("source rho = %s" % fx(red[0]))
    out.append("source m = [%s]" % (",\n            ".join(fx(r) for r in red[1:dim + 1])))
    out.append("source E = %s" % fx(red[dim + 1]))
    out.append("")
    out.append("let eE = ep/(gamma - 1) + 0.5*erho*(%s)" % " + ".join("e%s^2" % v for v in vel))
    em = "[%s]" % ", ".join("erho*e%s" % v for v in vel)
    out += ["initial rho = erho", "initial m = " + em, "initial E = eE",
            "exact rho = erho", "exact m = " + em, "exact E = eE"]
    out += ["", "# the mass stays 1: the exact density integrates to 1 at every t, and so",
            "# the source of rho integrates to 0 over the box",
            "integral mass = rho"]
    return "\n".join(out) + "\n"


def main():
    for dim in (2, 3):
        path = os.path.join(HERE, "ns%dd_mms" % dim, "ns%dd_mms.flux" % dim)
        with open(path, "w") as f:
            f.write(header(dim) + physics(dim) + FLUXES + mms_section(dim))
        print("wrote", path)


if __name__ == "__main__":
    main()
