# -lap u = f on the unit square with the manufactured solution
#   u = sin(pi x) sin(pi y) + x y,   f = 2 pi^2 sin(pi x) sin(pi y).
# Solved by dgrun's SIPG discretization ([problem] kind = poisson): `source`
# is f, `exact` gives the error norms, a boundary condition's value is u on
# the boundary (Dirichlet), or n . grad u for those listed in [poisson]
# neumann.  rhs / flux / initial are required by the language but unused.
dim 2
fields u
params k = 1
let s = sin(k*pi*x[0])*sin(k*pi*x[1])
let grad_u = [k*pi*cos(k*pi*x[0])*sin(k*pi*x[1]) + x[1], k*pi*sin(k*pi*x[0])*cos(k*pi*x[1]) + x[0]]
rhs u = 0
flux u = 0
initial u = 0
source u = 2*(k*pi)^2*s
exact u = s + x[0]*x[1]
boundary wall { u = s + x[0]*x[1] }
boundary flux_in { u = dot(n, grad_u) }
