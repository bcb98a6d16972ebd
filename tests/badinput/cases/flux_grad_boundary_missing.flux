# expect: flux_grad_boundary_missing.flux:7:10: error: boundary 'wall' does not give grad(u)
dim 2
fields u
params nu = 0.1, tau = 1
rhs u = div(nu*grad(u))
flux u = dot(ldg(nu*grad(u)), n) - tau*jump(u)
boundary wall { u = -u.int }
initial u = sin(2*pi*x[0])
