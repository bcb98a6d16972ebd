# Linear acoustics in 2D with rigid walls only: affine in the state with
# constant coefficients, so it runs on Bernstein-Bezier coefficients, and
# its velocity's rhs is a gradient (partials and the chain rule, not a
# divergence row): the emulator's case for those in the Bernstein kernels.
dim 2
fields p v[2]
params rho0 = 1, K = 2
let c = sqrt(K/rho0)
rhs p = -K*div(v)
rhs v = -grad(p)/rho0 + [0.25*p, 0]
flux p = -(K*dot(n, avg(v)) + c/2*jump(p))
flux v = -(n*avg(p)/rho0 + c/2*jump(v))
boundary wall { p = p.int; v = v.int - 2*dot(v.int, n)*n }
initial p = sin(pi*x[0])*cos(pi*x[1])
initial v = [0.5*sin(2*pi*x[1]), cos(pi*x[0])]
