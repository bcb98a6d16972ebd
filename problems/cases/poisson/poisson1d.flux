# -u'' = f on [0, 1] with u = sin(3 pi x / 2) + x^2, f = (3 pi / 2)^2 sin(3 pi x / 2) - 2.
# Dirichlet on the left, Neumann (n . u' given) on the right.  See poisson.flux.
dim 1
fields u
let w = 1.5*pi
rhs u = 0
flux u = 0
initial u = 0
source u = w^2*sin(w*x[0]) - 2
exact u = sin(w*x[0]) + x[0]^2
boundary wall { u = sin(w*x[0]) + x[0]^2 }
boundary flux_out { u = n[0]*(w*cos(w*x[0]) + 2*x[0]) }
