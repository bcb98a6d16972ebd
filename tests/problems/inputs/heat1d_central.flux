# problems.ldg_one_side: heat1d.flux with the central (Bassi & Rebay BR1)
# viscous flux avg(nu*dx(u)) instead of ldg(...): a gradient trace outside
# ldg, so the face needs both sides' gradients.
dim 1
fields u
params nu = 0.1, tau = 1

rhs u = div(nu*grad(u))
flux u = n[0]*avg(nu*dx(u)) - tau*jump(u)

let uex = exp(-nu*pi^2*t)*cos(pi*x[0]) + x[0]/2
boundary dirichlet { u = 2*uex - u.int; grad(u) = grad(u).int }
boundary neumann { u = u.int; grad(u) = grad(u).int }
initial u = uex
exact u = uex

wave_speed = 0
