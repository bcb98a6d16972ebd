# Inviscid Burgers u_t + (u^2/2)_x = 0 in 1D, steepening into a shock, with
# shock capturing by artificial viscosity (issue 41): the Persson-Peraire
# sensor of u sets the element viscosity, which the run writes into the
# coefficient av (continuous: vertex maxima, linear in between) every
# stage; the flux file adds the Laplacian term dx(av*dx(u)) through the
# second-order terms (LDG, FLUX_LANGUAGE.md "Second-order terms") and the
# Rusanov flux for the convective part.
#
# u0 = sin(pi x) on the periodic [0, 2]: characteristics cross at
# t = 1/pi, after which a stationary shock sits at x = 1 (by symmetry).
# The exact solution u = sin(pi xi), xi + t sin(pi xi) = x on each side,
# is computed by the test (tests/problems/shock_burgers.c).
#
# ldg_beta 0.5 (the alternating LDG fluxes, stable without a penalty):
# where the sensor gives av = 0 the scheme is the plain first-order one.
dim 1
fields u
coefficients av >= 0
rhs u = -dx(u^2/2) + dx(av*dx(u))
let lam = max(abs(u.int), abs(u.ext))
flux u = -(n[0]*avg(u^2/2) + lam/2*jump(u)) + n[0]*ldg(av*dx(u))
initial u = sin(pi*x[0])

# the largest signal speed at a node, for the time step without [time] wave_speed
wave_speed = abs(u)
