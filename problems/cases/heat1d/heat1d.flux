# The heat equation u_t = (nu u_x)_x on [0, 1] by LDG (Cockburn & Shu 1998;
# Hesthaven & Warburton 2008, Sec. 7.1): pass 1 lifts q = u_x with the
# one-sided trace avg(u) + beta_n*jump(u), pass 2 takes the opposite side of
# q, ldg(q) = avg(q) - beta_n*jump(q), and penalises the jump of u.
#
# Exact solution: a decaying cosine mode on a steady linear profile,
#     u = exp(-nu*pi^2*t)*cos(pi*x) + x/2,
# (u_t = -nu*pi^2*exp(...)cos(pi x) = nu*u_xx), with time-dependent data on
# both walls: Dirichlet at the left (u = g by the mirror exterior 2*g - u.int,
# whose average with u.int is g exactly), Neumann at the right (the exterior
# gradient 2*gN*n - grad(u).int, whose average has normal part gN = n*u_x).
#
# Scheme parameters: ldg_beta 0.5 (the default: the alternating fluxes, with
# which LDG converges at N + 1 in 1D even without a penalty, Cockburn & Shu
# 1998), tau = 1 (O(1), as Cockburn & Shu's C11: it keeps the rate N + 1 and
# adds only tau*(N+1)^2/h to the stiffness, small beside nu*(N+1)^4/h^2).
dim 1
fields u
params nu = 0.1, tau = 1

rhs u = div(nu*grad(u))
flux u = dot(ldg(nu*grad(u)), n) - tau*jump(u)

let uex = exp(-nu*pi^2*t)*cos(pi*x[0]) + x[0]/2
let uex_x = -pi*exp(-nu*pi^2*t)*sin(pi*x[0]) + 0.5
boundary dirichlet { u = 2*uex - u.int; grad(u) = grad(u).int }
boundary neumann { u = u.int; grad(u) = 2*n[0]*uex_x*n - grad(u).int }
initial u = uex
exact u = uex

# the largest signal speed at a node (the largest |eigenvalue| of the flux
# Jacobian over directions), for the time step without [time] wave_speed:
# none: pure diffusion, whose limit comes from [time] diffusivity
wave_speed = 0
