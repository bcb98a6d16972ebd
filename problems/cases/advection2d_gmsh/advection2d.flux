# Linear advection du/dt + div(a u) = 0, constant velocity a, upwind flux
# written as central flux plus |a.n|/2 times the jump.
dim 2
fields u
params ax = 1, ay = 0.5
let a = [ax, ay]
rhs u = -div(a*u)
flux u = -(dot(a, n)*avg(u) + abs(dot(a, n))/2*jump(u))
boundary inflow { u = sin(2*pi*(x[0] - ax*t))*sin(2*pi*(x[1] - ay*t)) }
boundary outflow { u = u.int }
initial u = sin(2*pi*x[0])*sin(2*pi*x[1])
exact u = sin(2*pi*(x[0] - ax*t))*sin(2*pi*(x[1] - ay*t))

# the largest signal speed at a node (the largest |eigenvalue| of the flux
# Jacobian over directions), for the time step without [time] wave_speed:
# |a|
wave_speed = norm(a)
