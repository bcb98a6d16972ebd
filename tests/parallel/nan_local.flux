# Finite at t = 0, but overflowing at once where it jumps (the inflow end
# x = 0 and x = 0.25): the first step makes Inf/NaN in a few elements of the
# rank holding [0, 0.5] while the other rank's state stays finite (the NaN
# check must still stop both ranks).
dim 1
fields u
params a = 1
rhs u = -dx(a*u)
let an = a*n[0]
flux u = -(an > 0 ? an*u.int : an*u.ext)
boundary inflow { u = 0 }
boundary outflow { u = u.int }
initial u = x[0] < 0.25 ? 1e307 : 0
