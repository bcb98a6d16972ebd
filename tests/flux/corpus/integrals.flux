dim 2
fields rho m[2] E
let ke = 0.5*dot(m, m)/rho
rhs rho = -div(m)
rhs m = -grad(E)
rhs E = -div(m)
flux rho = -dot(n, avg(m))
flux m = -avg(E)*n
flux E = -dot(n, avg(m))
initial rho = 1 + x[0]
initial m = [x[1], 2]
initial E = 3
integral mass = rho
integral kinetic = ke*x[0] + t
