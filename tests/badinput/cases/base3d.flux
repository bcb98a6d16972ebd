# Linear advection in 3D with the upwind flux; the velocity is a param vector.
dim 3
fields u
params ax = 1, ay = 0.5, az = -0.25
let a = [ax, ay, az]
let xr = x - t*a              # the point the solution comes from
rhs u = -div(a*u)
flux u = -(dot(a, n) > 0 ? dot(a, n)*u.int : dot(a, n)*u.ext)
boundary inflow { u = sin(2*pi*xr[0])*sin(2*pi*xr[1])*sin(2*pi*xr[2]) }
boundary outflow { u = u.int }
initial u = sin(2*pi*x[0])*sin(2*pi*x[1])*sin(2*pi*x[2])
exact u = sin(2*pi*xr[0])*sin(2*pi*xr[1])*sin(2*pi*xr[2])
# the largest signal speed at a node, for the time step (no [time] wave_speed)
wave_speed = norm(a)
