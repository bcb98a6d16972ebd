dim 1
fields u
params nu = 1, tau = 1
rhs u = -dx(u^2/2) + dx(nu*dx(u))
flux u = -n[0]*avg(u^2/2) - max(abs(u.int), abs(u.ext))/2*jump(u) +
  n[0]*ldg(nu*dx(u)) - tau*jump(u)
boundary b { u = -u.int; grad(u) = 2*n - grad(u).int }
initial u = sin(pi*x[0])
