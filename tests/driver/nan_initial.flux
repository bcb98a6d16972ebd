# An initial condition that is NaN everywhere (x < 2): the run must stop at t = 0.
dim 1
fields u
params a = 1
rhs u = -dx(a*u)
flux u = -(a*n[0]*avg(u) - 50*jump(u))
initial u = sqrt(x[0] - 2)
