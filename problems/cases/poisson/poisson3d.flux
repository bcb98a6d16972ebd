# -lap u = f on the unit cube with u = sin(pi x) sin(pi y) sin(pi z) + x y z,
# f = 3 pi^2 sin(pi x) sin(pi y) sin(pi z).  Dirichlet everywhere but
# back (z = 1), where n . grad u is given.  See poisson.flux.
dim 3
fields u
let s = sin(pi*x[0])*sin(pi*x[1])*sin(pi*x[2])
let grad_u = [pi*cos(pi*x[0])*sin(pi*x[1])*sin(pi*x[2]) + x[1]*x[2],
              pi*sin(pi*x[0])*cos(pi*x[1])*sin(pi*x[2]) + x[0]*x[2],
              pi*sin(pi*x[0])*sin(pi*x[1])*cos(pi*x[2]) + x[0]*x[1]]
rhs u = 0
flux u = 0
initial u = 0
source u = 3*pi^2*s
exact u = s + x[0]*x[1]*x[2]
boundary wall { u = s + x[0]*x[1]*x[2] }
boundary flux_in { u = dot(n, grad_u) }
