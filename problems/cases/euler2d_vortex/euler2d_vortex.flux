# Compressible Euler equations in 2D, conservative variables (rho, m, E),
# Lax-Friedrichs (Rusanov) flux with the largest local wave speed |u.n| + c.
# Exact solution: the isentropic vortex (Shu 1998; Yee, Sandham & Djomehri
# 1999) advected with velocity (u0, v0).
dim 2
fields rho m[2] E
params gamma = 1.4, beta = 5, x0 = 5, y0 = 0, u0 = 1, v0 = 0

# pointwise flux functions F(u)
let irho = 1/rho      # one division per node: a GPU division costs ~10 instructions
let u = m*irho
let p = (gamma - 1)*(E - 0.5*dot(m, m)*irho)
let c = sqrt(gamma*p*irho)
rhs rho = -div(m)
rhs m = -div([m[0]*u + [p, 0],
              m[1]*u + [0, p]])
rhs E = -div((E + p)*u)

# Rusanov: -(avg(F.n) + lam/2*jump(u)), lam = max(|u.n| + c) over both sides
let un = dot(u, n)
let lam = max(abs(un.int) + c.int, abs(un.ext) + c.ext)
flux rho = -(avg(rho*un) + lam/2*jump(rho))
flux m = -(avg(m*un + p*n) + lam/2*jump(m))
flux E = -(avg((E + p)*un) + lam/2*jump(E))

# the vortex
let xr = x[0] - x0 - u0*t
let yr = x[1] - y0 - v0*t
let r2 = xr^2 + yr^2
let T = 1 - (gamma - 1)*beta^2/(8*gamma*pi^2)*exp(1 - r2)
let rhoex = T^(1/(gamma - 1))
let vel = [u0 - beta/(2*pi)*exp((1 - r2)/2)*yr,
           v0 + beta/(2*pi)*exp((1 - r2)/2)*xr]
let Eex = rhoex^gamma/(gamma - 1) + 0.5*rhoex*dot(vel, vel)
initial rho = rhoex
initial m = rhoex*vel
initial E = Eex
exact rho = rhoex
exact m = rhoex*vel
exact E = Eex
boundary farfield { rho = rhoex; m = rhoex*vel; E = Eex }
boundary wall { rho = rho.int; m = m.int - 2*dot(m.int, n)*n; E = E.int }   # slip wall

# the run's integrals (problems/solver/quantities.h): conserved on a
# periodic box up to the time integration's error
integral mass = rho
integral momentum_x = m[0]
integral momentum_y = m[1]
integral energy = E
