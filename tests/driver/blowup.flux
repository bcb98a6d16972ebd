# An unstable problem for the NaN stop test: anti-diffusive flux that grows.
dim 1
fields u
params a = 1
rhs u = -dx(a*u)
flux u = -(a*n[0]*avg(u) - 50*jump(u))
initial u = sin(2*pi*x[0])
