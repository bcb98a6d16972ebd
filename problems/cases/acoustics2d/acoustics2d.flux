# Linear acoustics: dp/dt + K div(v) = 0, dv/dt + grad(p)/rho0 = 0, with the
# Lax-Friedrichs flux (wave speed c = sqrt(K/rho0)).
dim 2
fields p v[2]
params rho0 = 1, K = 1
let c = sqrt(K/rho0)
rhs p = -K*div(v)
rhs v = -grad(p)/rho0
flux p = -(K*dot(n, avg(v)) + c/2*jump(p))
flux v = -(n*avg(p)/rho0 + c/2*jump(v))
boundary wall { p = p.int; v = v.int - 2*dot(v.int, n)*n }    # rigid wall: v.n = 0
boundary open { p = sin(2*pi*(x[0] - c*t)); v = [sin(2*pi*(x[0] - c*t))/(rho0*c), 0] }
# a plane wave travelling in +x
initial p = sin(2*pi*x[0])
initial v = [sin(2*pi*x[0])/(rho0*c), 0]
exact p = sin(2*pi*(x[0] - c*t))
exact v = [sin(2*pi*(x[0] - c*t))/(rho0*c), 0]

# the largest signal speed at a node (the largest |eigenvalue| of the flux
# Jacobian over directions), for the time step without [time] wave_speed:
# the sound speed sqrt(K/rho0)
wave_speed = c
