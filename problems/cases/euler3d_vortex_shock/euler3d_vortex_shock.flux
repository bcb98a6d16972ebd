# The isentropic vortex of euler3d_vortex.flux with shock capturing switched
# on (issue 41): the compressible Euler equations with an artificial
# viscosity av in a Laplacian term of every equation (as sod3d.flux), which
# the Persson-Peraire sensor of rho sets every stage.  The flow is smooth, so
# the sensor finds no element to treat, av is zero everywhere, and the
# stages run the first-order kernels of the file without its av terms
# (problems/solver/solver_smooth.h): the Euler equations' own.  The exact
# solution is the vortex's.
dim 3
fields rho m[3] E
params gamma = 1.4, beta = 5, x0 = 5, y0 = 0, u0 = 1, v0 = 0
params Lx = 10, Ly = 10   # the periodic box (the initial and exact states wrap around it)
coefficients av >= 0

let irho = 1/rho      # one division per node: a GPU division costs ~10 instructions
let u = m*irho
let p = (gamma - 1)*(E - 0.5*dot(m, m)*irho)
let c = sqrt(gamma*p*irho)
rhs rho = -div(m) + div(av*grad(rho))
rhs m = -div([m[0]*u + [p, 0, 0],
              m[1]*u + [0, p, 0],
              m[2]*u + [0, 0, p]]) + div(av*grad(m))
rhs E = -div((E + p)*u) + div(av*grad(E))

let un = dot(u, n)
let lam = max(abs(un.int) + c.int, abs(un.ext) + c.ext)
flux rho = -(avg(rho*un) + lam/2*jump(rho)) + dot(ldg(av*grad(rho)), n)
flux m = -(avg(m*un + p*n) + lam/2*jump(m)) + dot(ldg(av*grad(m)), n)
flux E = -(avg((E + p)*un) + lam/2*jump(E)) + dot(ldg(av*grad(E)), n)

# The vortex centred at (x0 + u0*t, y0 + v0*t): the farfield boundary data.
let xr = x[0] - x0 - u0*t
let yr = x[1] - y0 - v0*t
let r2 = xr^2 + yr^2
let T = 1 - (gamma - 1)*beta^2/(8*gamma*pi^2)*exp(1 - r2)
let rhoex = T^(1/(gamma - 1))
let vel = [u0 - beta/(2*pi)*exp((1 - r2)/2)*yr,
           v0 + beta/(2*pi)*exp((1 - r2)/2)*xr, 0]
let Eex = rhoex^gamma/(gamma - 1) + 0.5*rhoex*dot(vel, vel)
boundary farfield { rho = rhoex; m = rhoex*vel; E = Eex
  grad(rho) = grad(rho).int; grad(m) = grad(m).int; grad(E) = grad(E).int }
boundary wall { rho = rho.int; m = m.int - 2*dot(m.int, n)*n; E = E.int   # slip wall
  grad(rho) = grad(rho).int; grad(m) = grad(m).int; grad(E) = grad(E).int }

# The initial state and the exact solution (euler3d_vortex.flux: the nearest
# image of the centre in the periodic box).
let xp = xr - Lx*floor(xr/Lx + 0.5)
let yp = yr - Ly*floor(yr/Ly + 0.5)
let r2p = xp^2 + yp^2
let Tp = 1 - (gamma - 1)*beta^2/(8*gamma*pi^2)*exp(1 - r2p)
let rhop = Tp^(1/(gamma - 1))
let velp = [u0 - beta/(2*pi)*exp((1 - r2p)/2)*yp,
            v0 + beta/(2*pi)*exp((1 - r2p)/2)*xp, 0]
let Ep = rhop^gamma/(gamma - 1) + 0.5*rhop*dot(velp, velp)
initial rho = rhop
initial m = rhop*velp
initial E = Ep
exact rho = rhop
exact m = rhop*velp
exact E = Ep

# the largest signal speed at a node, for the time step without [time] wave_speed
wave_speed = norm(u) + c
