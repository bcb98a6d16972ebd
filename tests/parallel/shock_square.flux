# problems.mpi_shock_h5_parts_np3 (shock_square.cfg): 2D advection with a
# Laplacian artificial viscosity on a periodic square, a disc of u for the
# sensor (it fires across most of the coarse mesh) and a floor for the limiter.
dim 2
fields u
params a0 = 1, a1 = 0.5
coefficients av >= 0
let a = [a0, a1]
rhs u = -div(a*u) + div(av*grad(u))
flux u = -(avg(u)*dot(a, n) + abs(dot(a, n))/2*jump(u)) + dot(ldg(av*grad(u)), n)
initial u = (x[0] - 0.45)^2 + (x[1] - 0.5)^2 < 0.06 ? 1 : 0.1
