# advection2d with twice the consistent flux: refused at load unless
# [problem] check_flux_consistency = warn or off (tests/problems/flux_consistency.c)
dim 2
fields u
params ax = 1, ay = 0.5
let a = [ax, ay]
rhs u = -div(a*u)
flux u = -2*dot(a, n)*avg(u)
boundary wall { u = u.int }
initial u = sin(2*pi*x[0])*sin(2*pi*x[1])
