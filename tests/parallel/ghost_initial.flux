# An initial condition that is NaN at x = 0 (sqrt of a negative number) on a
# domain away from the origin (tests/parallel/ghost_initial.cfg): only the
# owned elements may be evaluated, never the ghost slots of a partitioned run.
dim 1
fields u
params a = 1
rhs u = -dx(a*u)
let an = a*n[0]
flux u = -(an > 0 ? an*u.int : an*u.ext)
initial u = sin(2*pi*x[0])*sqrt(x[0] - 0.5)
