# Linear advection du/dt + a du/dx = 0 with the upwind flux.
dim 1
fields u
params a = 1
rhs u = -dx(a*u)
# upwind: the normal flux a*n*u taken from the side the wind comes from
let an = a*n[0]
flux u = -(an > 0 ? an*u.int : an*u.ext)
boundary inflow { u = sin(2*pi*(x[0] - a*t)) }
boundary outflow { u = u.int }
initial u = sin(2*pi*x[0])
exact u = sin(2*pi*(x[0] - a*t))

# the largest signal speed at a node (the largest |eigenvalue| of the flux
# Jacobian over directions), for the time step without [time] wave_speed:
# |a|
wave_speed = abs(a)
