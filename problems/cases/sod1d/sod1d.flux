# Sod's shock tube (Sod 1978): the compressible Euler equations in 1D,
# conserved variables rho, m = rho u, E, with shock capturing (issue 41):
# the Persson-Peraire sensor of rho sets an element viscosity that the run
# writes into the coefficient av every stage (continuous: vertex maxima,
# linear in between); each equation gets the Laplacian term dx(av*dx(q))
# through the second-order terms (LDG, FLUX_LANGUAGE.md), and the
# Rusanov flux the convective part.  [shock] positivity keeps rho and p
# above a floor (Zhang & Shu 2010).  The exact Riemann solution is the
# test's (tests/problems/shock_sod.c).
dim 1
fields rho m E
# (the params: any Riemann problem; Toro's test 2, the near-vacuum "123"
# problem, is rhoL = rhoR = 1, uL = -2, uR = 2, pL = pR = 0.4; with ampR and
# waveR the right density is rhoR (1 + ampR sin(waveR x)): Shu & Osher's
# shock hitting an entropy wave, shu_osher.cfg)
params gamma = 1.4, x0 = 0.5, rhoL = 1, uL = 0, pL = 1, rhoR = 0.125, uR = 0, pR = 0.1
params ampR = 0, waveR = 0
coefficients av >= 0
let u = m/rho
let p = (gamma - 1)*(E - 0.5*m*u)
let c = sqrt(gamma*abs(p)/rho)
rhs rho = -dx(m) + dx(av*dx(rho))
rhs m = -dx(m*u + p) + dx(av*dx(m))
rhs E = -dx((E + p)*u) + dx(av*dx(E))
let lam = max(abs(u.int) + c.int, abs(u.ext) + c.ext)
flux rho = -(n[0]*avg(m) + lam/2*jump(rho)) + n[0]*ldg(av*dx(rho))
flux m = -(n[0]*avg(m*u + p) + lam/2*jump(m)) + n[0]*ldg(av*dx(m))
flux E = -(n[0]*avg((E + p)*u) + lam/2*jump(E)) + n[0]*ldg(av*dx(E))
# the ends (far from the waves until t = 0.2): the interior state and gradients
boundary far { rho = rho.int; m = m.int; E = E.int
  grad(rho) = grad(rho).int; grad(m) = grad(m).int; grad(E) = grad(E).int }
# a supersonic inflow: the left state imposed (Shu-Osher's left end)
boundary inflow { rho = rhoL; m = rhoL*uL; E = pL/(gamma - 1) + 0.5*rhoL*uL^2
  grad(rho) = grad(rho).int; grad(m) = grad(m).int; grad(E) = grad(E).int }
let left = x[0] < x0
let rho0 = left ? rhoL : rhoR*(1 + ampR*sin(waveR*x[0]))
initial rho = rho0
initial m = rho0*(left ? uL : uR)
initial E = (left ? pL : pR)/(gamma - 1) + 0.5*rho0*(left ? uL : uR)^2

# the largest signal speed at a node (the largest |eigenvalue| of the flux
# Jacobian over directions), for the time step without [time] wave_speed
wave_speed = abs(u) + c
