# Viscous Burgers u_t + (u^2/2)_x = (nu u_x)_x in 1D: Rusanov flux for the
# convective part, LDG for the viscous one (Cockburn & Shu 1998; Hesthaven &
# Warburton 2008, Sec. 7.1 and 7.2).
#
# Exact solution: the travelling viscous shock from uL to uR < uL at the speed
# s = (uL + uR)/2 of its Rankine-Hugoniot condition,
#     u = uR + (uL - uR)/(1 + exp((uL - uR)*(x - x0 - s*t)/(2*nu)))
#       = s - (uL - uR)/2*tanh((uL - uR)*(x - x0 - s*t)/(4*nu)),
# of width ~ 4*nu/(uL - uR) = 0.25 on the shipped [-1, 1] (the centre from
# x0 = -0.4 to -0.25 at t = 0.25); the exact solution
# is the Dirichlet data at both ends (mirror exterior u = 2*g - u.int: the LDG
# trace of u is g, and the Rusanov flux sees g on average).
#
# Scheme parameters: ldg_beta 0.5 (the default), tau = 1 (O(1), Cockburn &
# Shu's C11; the rate stays N + 1).
dim 1
fields u
params nu = 0.05, tau = 1, uL = 1, uR = 0.2, x0 = -0.4

rhs u = -dx(u^2/2) + dx(nu*dx(u))
let lam = max(abs(u.int), abs(u.ext))
flux u = -(n[0]*avg(u^2/2) + lam/2*jump(u)) + n[0]*ldg(nu*dx(u)) - tau*jump(u)

let s = (uL + uR)/2
let uex = uR + (uL - uR)/(1 + exp((uL - uR)*(x[0] - x0 - s*t)/(2*nu)))
boundary dirichlet { u = 2*uex - u.int; grad(u) = grad(u).int }
initial u = uex
exact u = uex

# the largest signal speed at a node (the largest |eigenvalue| of the flux
# Jacobian over directions), for the time step without [time] wave_speed:
# |f'(u)| = |u|; the diffusive limit comes from [time] diffusivity
wave_speed = abs(u)
