# problems.quantities_*: a state that differs from its exact solution by a
# known function, and integrals with closed-form values on the unit square
# (tests/problems/quantities.c).  The equations are never stepped.
dim 2
fields u w m[2]
rhs u = -dx(u)
rhs w = -dx(w)
rhs m = -dx(m)
flux u = -n[0]*avg(u)
flux w = -n[0]*avg(w)
flux m = -n[0]*avg(m)
initial u = 1 + x[0]*x[1] + x[0]^2*x[1]
initial w = 0
initial m = [x[0], 2*x[1]]
exact u = 1 + x[0]*x[1]
exact w = sin(pi*x[0])*sin(pi*x[1])
integral a2 = x[0]^2*x[1]
integral mass = u
integral ke = 0.5*dot(m, m)
integral tu = t*u
