# a second-order term (heat equation) for the cases that need one
dim 2
fields u
params nu = 0.1, tau = 1
rhs u = div(nu*grad(u))
flux u = dot(ldg(nu*grad(u)), n) - tau*jump(u)
boundary wall { u = -u.int; grad(u) = grad(u).int }
initial u = sin(2*pi*x[0])
wave_speed = 0
