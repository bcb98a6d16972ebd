# Every derivative kind with a position-dependent argument, 2D
# (tests/problems/deriv_position.c).  Each rhs is D(g) minus its analytic
# value, with g a polynomial of degree <= 2 (exact in the space for N >= 2)
# and u = 1; each flux is the surface form of its rhs at equal traces, so the
# lifted term vanishes and the right-hand side is zero to round-off.
dim 2
fields u r s g[2] c w[2] k
let a = [-x[1], x[0]]
# solid-body rotation: -div(a u) = -(div a) u - a . grad u = 0 at u = 1
rhs u = -div(a*u)
flux u = -dot(a, n)*avg(u)
# the same by partials: -dx(-x1 u) - dy(x0 u) = 0
rhs r = -dx(-x[1]*u) - dy(x[0]*u)
flux r = -(-n[0]*x[1] + n[1]*x[0])*avg(u)
# dx(x0 x1) = x1
rhs s = dx(x[0]*x[1]*u) - x[1]
flux s = n[0]*x[0]*x[1]*avg(u)
# grad(x0 x1) = [x1, x0]
rhs g = grad(x[0]*x[1]*u) - [x[1], x[0]]
flux g = n*x[0]*x[1]*avg(u)
# div([x0^2, x1^2]) = 2 x0 + 2 x1
rhs c = div([x[0]^2, x[1]^2]*u) - 2*x[0] - 2*x[1]
flux c = dot(n, [x[0]^2, x[1]^2])*avg(u)
# curl of a scalar, [dy f, -dx f]: f = x0 x1 gives [x0, -x1]
rhs w = curl(x[0]*x[1]*u) - [x[0], -x[1]]
flux w = cross(n, x[0]*x[1]*avg(u))
# curl of a 2-vector, dx(g1) - dy(g0): g = a gives 2
rhs k = curl(a*u) - 2
flux k = cross(n, a*avg(u))
boundary wall { u = u.int; r = r.int; s = s.int; g = g.int; c = c.int; w = w.int; k = k.int }
initial u = 1
initial r = 0
initial s = 0
initial g = [0, 0]
initial c = 0
initial w = [0, 0]
initial k = 0
