# Position-dependent derivative arguments in 3D (see deriv_position_2d.flux):
# dz, the 3D curl and divergence, at u = 1; the rhs is zero to round-off.
dim 3
fields u s v[3] g[3]
let a = [-x[1], x[0], x[2]]
# div(a u) = div a = 1 at u = 1
rhs u = -div(a*u) + 1
flux u = -dot(a, n)*avg(u)
# dz(x0 x2) = x0
rhs s = dz(x[0]*x[2]*u) - x[0]
flux s = n[2]*x[0]*x[2]*avg(u)
# curl([-x1, x0, x2]) = [0, 0, 2]
rhs v = curl(a*u) - [0, 0, 2]
flux v = cross(n, a*avg(u))
# grad(x1 x2) = [0, x2, x1]
rhs g = grad(x[1]*x[2]*u) - [0, x[2], x[1]]
flux g = n*x[1]*x[2]*avg(u)
boundary wall { u = u.int; s = s.int; v = v.int; g = g.int }
initial u = 1
initial s = 0
initial v = [0, 0, 0]
initial g = [0, 0, 0]
