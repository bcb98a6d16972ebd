# Advection-diffusion u_t + a.grad(u) = nu*lap(u) in 2D: upwind advective
# flux plus the LDG viscous flux (Cockburn & Shu 1998; Hesthaven & Warburton
# 2008, Sec. 7.1).
#
# Exact solution (free space): a Gaussian of variance s2 = s0^2 + 2*nu*t per
# axis travelling with the velocity a, its amplitude s0^2/s2 keeping the
# integral constant,
#     u = s0^2/s2 * exp(-|x - c0 - a*t|^2/(2*s2)).
# On the shipped box [-1, 1]^2 (the hill from c0 = (-0.3, -0.2) to (0.1, 0) at
# t = 0.5) the exact solution is the Dirichlet data on every side (mirror
# exterior u = 2*g - u.int: the LDG trace of u is g; the upwind flux takes g
# at inflow and u.int at outflow), a few percent of the peak at the sides.
#
# Scheme parameters: ldg_beta 0.5 (the default), tau = 1 (O(1), Cockburn &
# Shu's C11; beside the upwind |a.n|/2 it keeps the rate N + 1).
dim 2
fields u
params ax = 0.8, ay = 0.4, nu = 0.02, tau = 1, s0 = 0.3, cx = -0.3, cy = -0.2
let a = [ax, ay]

rhs u = -div(a*u) + div(nu*grad(u))
flux u = -(dot(a, n)*avg(u) + abs(dot(a, n))/2*jump(u)) + dot(ldg(nu*grad(u)), n) - tau*jump(u)

let s2 = s0^2 + 2*nu*t
let xr = x[0] - cx - ax*t
let yr = x[1] - cy - ay*t
let uex = s0^2/s2*exp(-(xr^2 + yr^2)/(2*s2))
boundary dirichlet { u = 2*uex - u.int; grad(u) = grad(u).int }
initial u = uex
exact u = uex

# the largest signal speed at a node (the largest |eigenvalue| of the flux
# Jacobian over directions), for the time step without [time] wave_speed:
# |a|; the diffusive limit comes from [time] diffusivity
wave_speed = norm(a)
