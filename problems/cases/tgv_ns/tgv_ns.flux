# Compressible Navier-Stokes in 3D: the Taylor-Green vortex at Re = 1600, Mach 0.1
# (workshop case C3.5, Hillewaert 2013; PyFR's tgv_ns.ini), on the periodic box
# [0, 2 pi]^3.  Units rho0 = U0 = L = 1, so mu = 1/Re and p0 = 1/(gamma Ma^2).
# Conserved variables rho, m = rho u, E; the viscous terms by LDG (Cockburn & Shu
# 1998) on the lifted gradients of the velocity u and the temperature T = p/rho
# (R = 1), as FLEXI lifts primitive gradients; ldg_beta in problem.cfg ([problem]
# ldg_beta, default 0.5 as PyFR's ldg-beta), tau = 0.1 as PyFR's ldg-tau.
dim 3
fields rho m[3] E
params gamma = 1.4, mu = 6.25e-4, Pr = 0.71, tau = 0.1
params p0 = 71.42857142857143   # 1/(gamma Ma^2), Ma = 0.1

let irho = 1/rho
let u = m*irho
let p = (gamma - 1)*(E - 0.5*dot(m, u))
let T = p*irho
let c = sqrt(gamma*T)

# Newtonian stress (Stokes' hypothesis) and the heat flux kappa grad T with
# kappa = mu cp/Pr, cp = gamma/(gamma - 1) (R = 1).  grad(u) is the 3x3 matrix
# of rows grad(u[i]), G[i][j] = du_i/dx_j.
let G = grad(u)
let divu = trace(G)
let S = mu*(G + transpose(G)) - 2/3*mu*[[divu, 0, 0], [0, divu, 0], [0, 0, divu]]
let qh = mu*gamma/(Pr*(gamma - 1))*grad(T)
let Sw = dot(S, u)                # the stress's work, rows S[i] . u

rhs rho = -div(m)
rhs m = -div([m[0]*u + [p, 0, 0] - S[0],
              m[1]*u + [0, p, 0] - S[1],
              m[2]*u + [0, 0, p] - S[2]])
rhs E = -div((E + p)*u - Sw - qh)

# Rusanov for the inviscid part (PyFR's riemann-solver = rusanov), the LDG
# viscous flux ldg(F_v).n and its penalty tau*jump on every field (PyFR's
# ldg-tau acts on every conserved variable).  At equal traces this is the
# surface form -F.n of every rhs.
let un = dot(u, n)
let lam = max(abs(un.int) + c.int, abs(un.ext) + c.ext)
flux rho = -(avg(rho*un) + lam/2*jump(rho)) - tau*jump(rho)
flux m = -(avg(m*un + p*n) + lam/2*jump(m)) + dot(ldg(S), n) - tau*jump(m)
flux E = -(avg((E + p)*un) + lam/2*jump(E)) + dot(ldg(Sw + qh), n) - tau*jump(E)

# The initial state of C3.5 (PyFR's [soln-ics]): rho = 1 and
let vel0 = [sin(x[0])*cos(x[1])*cos(x[2]), -cos(x[0])*sin(x[1])*cos(x[2]), 0]
let pr0 = p0 + (cos(2*x[0]) + cos(2*x[1]))*(cos(2*x[2]) + 2)/16
initial rho = 1
initial m = vel0
initial E = pr0/(gamma - 1) + 0.5*dot(vel0, vel0)

# The run's integrals (problems/solver/quantities.h).  ke/(2 pi)^3 is E_k of
# the workshop case; problems/tools/plot_tgv.py differentiates it into the
# dissipation rate -dE_k/dt and plots it against the 512^3 spectral DNS
# (reference_dissipation.csv).  The total energy is conserved on the periodic
# box, so d(ie)/dt = -d(ke)/dt: the kinetic energy dissipated goes into heat.
integral mass = rho
integral momentum_x = m[0]
integral momentum_y = m[1]
integral momentum_z = m[2]
integral energy = E
integral ke = 0.5*dot(m, m)/rho
integral ie = p/(gamma - 1)

# the largest signal speed at a node (the largest |eigenvalue| of the flux
# Jacobian over directions), for the time step without [time] wave_speed:
# |u| + c of the Euler part; the viscous limit comes from [time] diffusivity
wave_speed = norm(u) + c
