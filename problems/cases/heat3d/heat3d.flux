# The heat equation u_t = div(nu grad u) on the unit cube by LDG (Cockburn &
# Shu 1998; Hesthaven & Warburton 2008, Sec. 7.1).
#
# Exact solution: a decaying mode on a steady (harmonic) linear profile,
#     u = exp(-3*pi^2*nu*t)*cos(pi*x)*cos(pi*y)*cos(pi*z) + (x + y - z)/4,
# with time-dependent data: Dirichlet on the x and z faces (u = g by the
# mirror exterior 2*g - u.int, whose average with u.int is g), Neumann on the
# y faces (the exterior gradient 2*gN*n - grad(u).int, whose average has the
# normal part gN = n.grad(u) of the exact solution).
#
# Scheme parameters: ldg_beta 0.5 (the default), tau = 1 (O(1): the penalty
# that keeps LDG stable and convergent at N + 1 on simplices, Cockburn,
# Kanschat, Perugia & Schotzau 2001).
dim 3
fields u
params nu = 0.05, tau = 1

rhs u = div(nu*grad(u))
flux u = dot(ldg(nu*grad(u)), n) - tau*jump(u)

let decay = exp(-3*pi^2*nu*t)
let uex = decay*cos(pi*x[0])*cos(pi*x[1])*cos(pi*x[2]) + (x[0] + x[1] - x[2])/4
let gradex = [-pi*decay*sin(pi*x[0])*cos(pi*x[1])*cos(pi*x[2]) + 0.25,
              -pi*decay*cos(pi*x[0])*sin(pi*x[1])*cos(pi*x[2]) + 0.25,
              -pi*decay*cos(pi*x[0])*cos(pi*x[1])*sin(pi*x[2]) - 0.25]
boundary dirichlet { u = 2*uex - u.int; grad(u) = grad(u).int }
boundary neumann { u = u.int; grad(u) = 2*dot(gradex, n)*n - grad(u).int }
initial u = uex
exact u = uex

# the largest signal speed at a node (the largest |eigenvalue| of the flux
# Jacobian over directions), for the time step without [time] wave_speed:
# none: pure diffusion, whose limit comes from [time] diffusivity
wave_speed = 0
