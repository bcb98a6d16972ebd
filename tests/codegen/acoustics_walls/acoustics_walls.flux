# Linear acoustics in 2D with rigid walls only: affine in the state with
# constant coefficients, so it runs on Bernstein-Bezier coefficients, and
# its velocity's rhs is a gradient (partials by the chain rule, not a
# divergence row).  The Bernstein kernels' case for those: the emulator
# (operators.cuda_emulate_acoustics_walls) and the GPU against the cpu
# backend (problems.backend_match_acoustics_walls_bernstein).
# Exact solution: the (1, 1) standing mode of the box [0,1]^2.
dim 2
fields p v[2]
params rho0 = 1, K = 2
let c = sqrt(K/rho0)
let w = sqrt(2)*pi*c
rhs p = -K*div(v)
rhs v = -grad(p)/rho0
flux p = -(K*dot(n, avg(v)) + c/2*jump(p))
flux v = -(n*avg(p)/rho0 + c/2*jump(v))
boundary wall { p = p.int; v = v.int - 2*dot(v.int, n)*n }
initial p = cos(pi*x[0])*cos(pi*x[1])
initial v = [0, 0]
exact p = cos(pi*x[0])*cos(pi*x[1])*cos(w*t)
exact v = [pi/(rho0*w)*sin(pi*x[0])*cos(pi*x[1])*sin(w*t),
           pi/(rho0*w)*cos(pi*x[0])*sin(pi*x[1])*sin(w*t)]
