# -lap u = f, periodic in x, Dirichlet in y: u = sin(2 pi x) sin(pi y) + y.
dim 2
fields u
rhs u = 0
flux u = 0
initial u = 0
source u = 5*pi^2*sin(2*pi*x[0])*sin(pi*x[1])
exact u = sin(2*pi*x[0])*sin(pi*x[1]) + x[1]
boundary wall { u = sin(2*pi*x[0])*sin(pi*x[1]) + x[1] }
