# expect: flux_grad_of_expression.flux:5:16: error: grad of an expression inside a derivative
dim 2
fields u
params nu = 0.1, tau = 1
rhs u = div(nu*grad(2*u))
flux u = dot(ldg(nu*grad(u)), n) - tau*jump(u)
boundary wall { u = -u.int; grad(u) = grad(u).int }
initial u = sin(2*pi*x[0])
