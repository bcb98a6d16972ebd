# The heat equation u_t = div(nu grad u) on the periodic unit square by LDG
# (Cockburn & Shu 1998; Hesthaven & Warburton 2008, Sec. 7.1).
#
# Exact solution: two Fourier modes, each decaying at nu*|k|^2,
#     u = exp(-8*pi^2*nu*t)*sin(2*pi*x)*cos(2*pi*y)       (|k|^2 = 8 pi^2)
#       + 0.5*exp(-4*pi^2*nu*t)*cos(2*pi*y + 0.5)          (|k|^2 = 4 pi^2),
# periodic in x and y with period 1 (no boundary faces on the shipped mesh;
# the dirichlet block serves other meshes, u = g by the mirror exterior).
#
# Scheme parameters: ldg_beta 0.5 (the default; beta_n = 0.5*sign(w.n) picks
# one side per face, the switch of Cockburn & Shu's LDG on simplices),
# tau = 1 (O(1): the penalty that keeps LDG stable and convergent at N + 1 on
# simplices, Cockburn, Kanschat, Perugia & Schotzau 2001).
dim 2
fields u
params nu = 0.02, tau = 1

rhs u = div(nu*grad(u))
flux u = dot(ldg(nu*grad(u)), n) - tau*jump(u)

let uex = exp(-8*pi^2*nu*t)*sin(2*pi*x[0])*cos(2*pi*x[1]) +
          0.5*exp(-4*pi^2*nu*t)*cos(2*pi*x[1] + 0.5)
boundary dirichlet { u = 2*uex - u.int; grad(u) = grad(u).int }
initial u = uex
exact u = uex

# the largest signal speed at a node (the largest |eigenvalue| of the flux
# Jacobian over directions), for the time step without [time] wave_speed:
# none: pure diffusion, whose limit comes from [time] diffusivity
wave_speed = 0
