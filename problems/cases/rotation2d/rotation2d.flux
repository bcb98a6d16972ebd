# Solid-body rotation of a Gaussian hill about the centre c of the unit
# square, in the conservative form du/dt + div(a(x) u) = 0 with the
# position-dependent velocity a = omega * [-(y - c1), x - c0] (div a = 0, so
# the conservative and the advective forms agree and u is carried along
# circles).  Upwind flux: central plus |a.n|/2 times the jump; a is the
# same on both sides of a face (continuous in x), so no trace is needed.
dim 2
fields u
params omega = 2*pi, c0 = 0.5, c1 = 0.5, r0 = 0.2, w = 0.15
let a = omega*[-(x[1] - c1), x[0] - c0]
# the hill's centre at time t: (c0 + r0 cos(omega t), c1 + r0 sin(omega t))
let hill = exp(-((x[0] - c0 - r0*cos(omega*t))^2 + (x[1] - c1 - r0*sin(omega*t))^2)/(w*w))
rhs u = -div(a*u)
flux u = -(dot(a, n)*avg(u) + abs(dot(a, n))/2*jump(u))
# inflow gives the exact value; on outflow the upwind flux ignores it
boundary wall { u = hill }
initial u = hill
exact u = hill

# the largest signal speed at a node (the largest |eigenvalue| of the flux
# Jacobian over directions), for the time step without [time] wave_speed:
# |a(x)|, largest at the corners
wave_speed = norm(a)
