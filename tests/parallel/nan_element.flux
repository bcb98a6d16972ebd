# Finite at t = 0, overflowing at once where it jumps (x = 0.75): Inf/NaN
# in the first step in elements of the upper half only, whose local
# numbers on a rank differ from their numbers in the mesh.
dim 1
fields u
params a = 1
rhs u = -dx(a*u)
let an = a*n[0]
flux u = -(an > 0 ? an*u.int : an*u.ext)
boundary inflow { u = 0 }
boundary outflow { u = u.int }
initial u = x[0] > 0.75 ? 1e307 : 0
