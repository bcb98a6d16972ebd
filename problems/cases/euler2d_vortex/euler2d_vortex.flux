# Compressible Euler equations in 2D, conservative variables (rho, m, E),
# Lax-Friedrichs (Rusanov) flux with the largest local wave speed |u.n| + c.
# Exact solution: the isentropic vortex (Shu 1998; Yee, Sandham & Djomehri
# 1999) advected with velocity (u0, v0).
dim 2
fields rho m[2] E
params gamma = 1.4, beta = 5, x0 = 5, y0 = 0, u0 = 1, v0 = 0
params Lx = 10, Ly = 10   # the periodic box (the initial and exact states wrap around it)

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

# The vortex centred at (x0 + u0*t, y0 + v0*t): the farfield boundary data.
let xr = x[0] - x0 - u0*t
let yr = x[1] - y0 - v0*t
let r2 = xr^2 + yr^2
let T = 1 - (gamma - 1)*beta^2/(8*gamma*pi^2)*exp(1 - r2)
let rhoex = T^(1/(gamma - 1))
let vel = [u0 - beta/(2*pi)*exp((1 - r2)/2)*yr,
           v0 + beta/(2*pi)*exp((1 - r2)/2)*xr]
let Eex = rhoex^gamma/(gamma - 1) + 0.5*rhoex*dot(vel, vel)
boundary farfield { rho = rhoex; m = rhoex*vel; E = Eex }
boundary wall { rho = rho.int; m = m.int - 2*dot(m.int, n)*n; E = E.int }   # slip wall

# The initial state and the exact solution: in a periodic box the vortex
# leaves through one side and comes back through the other, so each point
# sees the nearest image of the centre, x - c - Lx*floor((x - c)/Lx + 1/2)
# (the other images add exp(-Lx^2/8) relative, 4e-6 at Lx = 10; set Lx, Ly
# to the box, or large for a domain that is not periodic).
let xp = xr - Lx*floor(xr/Lx + 0.5)
let yp = yr - Ly*floor(yr/Ly + 0.5)
let r2p = xp^2 + yp^2
let Tp = 1 - (gamma - 1)*beta^2/(8*gamma*pi^2)*exp(1 - r2p)
let rhop = Tp^(1/(gamma - 1))
let velp = [u0 - beta/(2*pi)*exp((1 - r2p)/2)*yp,
            v0 + beta/(2*pi)*exp((1 - r2p)/2)*xp]
let Ep = rhop^gamma/(gamma - 1) + 0.5*rhop*dot(velp, velp)
initial rho = rhop
initial m = rhop*velp
initial E = Ep
exact rho = rhop
exact m = rhop*velp
exact E = Ep

# the run's integrals (problems/solver/quantities.h): conserved on a
# periodic box up to the time integration's error
integral mass = rho
integral momentum_x = m[0]
integral momentum_y = m[1]
integral energy = E

# the largest signal speed at a node (the largest |eigenvalue| of the flux
# Jacobian over directions), for the time step without [time] wave_speed:
# |u| + c, the largest |u.n| + c over directions n
wave_speed = norm(u) + c
