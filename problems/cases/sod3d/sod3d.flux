# Sod's shock tube as a planar problem in 3D (issue 41): the compressible
# Euler equations, conserved variables rho, m = rho u, E, on tetrahedra, the
# tube along x[0] and periodic in x[1] and x[2]; shock capturing as in
# sod2d.flux (the Persson-Peraire sensor of rho, av in a Laplacian term of
# every equation, [shock] positivity on rho and p).  The solution is the 1D
# one (Toro 2009, test 1), tests/problems/shock_1d.c.
dim 3
fields rho m[3] E
params gamma = 1.4, x0 = 0.5, rhoL = 1, pL = 1, rhoR = 0.125, pR = 0.1
coefficients av >= 0
let u = m/rho
let p = (gamma - 1)*(E - 0.5*dot(m, u))
let c = sqrt(gamma*abs(p)/rho)
rhs rho = -div(m) + div(av*grad(rho))
rhs m = -div([m[0]*u + [p, 0, 0], m[1]*u + [0, p, 0], m[2]*u + [0, 0, p]]) + div(av*grad(m))
rhs E = -div((E + p)*u) + div(av*grad(E))
let un = dot(u, n)
let lam = max(abs(un.int) + c.int, abs(un.ext) + c.ext)
flux rho = -(avg(rho*un) + lam/2*jump(rho)) + dot(ldg(av*grad(rho)), n)
flux m = -(avg(m*un + p*n) + lam/2*jump(m)) + dot(ldg(av*grad(m)), n)
flux E = -(avg((E + p)*un) + lam/2*jump(E)) + dot(ldg(av*grad(E)), n)
# the ends (far from the waves until t = 0.2): the interior state and gradients
boundary far { rho = rho.int; m = m.int; E = E.int
  grad(rho) = grad(rho).int; grad(m) = grad(m).int; grad(E) = grad(E).int }
initial rho = x[0] < x0 ? rhoL : rhoR
initial m = [0, 0, 0]
initial E = (x[0] < x0 ? pL : pR)/(gamma - 1)

# the largest signal speed at a node (the largest |eigenvalue| of the flux
# Jacobian over directions), for the time step without [time] wave_speed
wave_speed = norm(u) + c
