# problems.dt_growth: 1D advection at a = 1 whose declared wave speed drops
# from 10 to 1 at t = 0.02 (an overestimate before: still a stable step), so
# the computed dt must grow to the new limit by at most [time] dt_growth per
# update.
dim 1
fields u
params a = 1
rhs u = -dx(a*u)
let an = a*n[0]
flux u = -(an > 0 ? an*u.int : an*u.ext)
boundary inflow { u = sin(2*pi*(x[0] - a*t)) }
boundary outflow { u = u.int }
initial u = sin(2*pi*x[0])
exact u = sin(2*pi*(x[0] - a*t))
wave_speed = t < 0.02 ? 10 : 1
