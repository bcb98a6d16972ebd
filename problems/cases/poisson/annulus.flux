# -lap u = f on the annulus 1 <= r <= 2 (meshes/annulus.geo, curved
# elements with [mesh] geometry_order = k) with the exact solution
#   u = exp(x) sin(2 y),   f = 3 exp(x) sin(2 y).
# The boundary data are given on the true circles: a boundary value at x is
# u at the nearest point of the circle, p = R x / |x| (R = 1 inner, 2
# outer), as data known on a curved wall are.  On the curved meshes the
# quadrature points lie on the circles to O(h^(k+1)) and the data stay
# accurate; on the straight-sided mesh (geometry_order = 1) the polygon
# lies O(h^2) inside and the data err by O(h^2): the rate it loses.  flux_in
# (named in [poisson] neumann) is n . grad u at p with the circle's outward
# normal of the domain, -p on the inner circle.
dim 2
fields u
let r = sqrt(x[0]^2 + x[1]^2)
let p = [x[0]/r, x[1]/r]
let q = [2*x[0]/r, 2*x[1]/r]
rhs u = 0
flux u = 0
initial u = 0
source u = 3*exp(x[0])*sin(2*x[1])
exact u = exp(x[0])*sin(2*x[1])
boundary inner { u = exp(p[0])*sin(2*p[1]) }
boundary outer { u = exp(q[0])*sin(2*q[1]) }
boundary flux_in { u = -(p[0]*exp(p[0])*sin(2*p[1]) + p[1]*2*exp(p[0])*cos(2*p[1])) }
