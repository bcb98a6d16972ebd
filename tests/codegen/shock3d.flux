# operators.shock_emulate_3d: advection with a Laplacian artificial
# viscosity on tetrahedra (the shock module's 3D modes and vertex maps),
# a step in u for the sensor and a positive floor for the limiter.
dim 3
fields u
params a0 = 1, a1 = 0.5, a2 = 0.25
coefficients av >= 0
let a = [a0, a1, a2]
rhs u = -div(a*u) + div(av*grad(u))
flux u = -(avg(u)*dot(a, n) + abs(dot(a, n))/2*jump(u)) + dot(ldg(av*grad(u)), n)
initial u = x[0] < 0.5 ? 1 : 0.1
