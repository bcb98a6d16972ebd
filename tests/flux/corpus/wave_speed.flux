# a seed with the wave_speed statement (operators.flux_fuzz)
dim 2
fields rho m[2] E
params gamma = 1.4
let u = m/rho
let p = (gamma - 1)*(E - 0.5*dot(m, u))
let c = sqrt(gamma*p/rho)
rhs rho = -div(m)
rhs m = -grad(p)
rhs E = -div((E + p)*u)
let lam = max(norm(u.int) + c.int, norm(u.ext) + c.ext)
flux rho = -(dot(n, avg(m)) + lam/2*jump(rho))
flux m = -(avg(p)*n + lam/2*jump(m))
flux E = -(dot(n, avg((E + p)*u)) + lam/2*jump(E))
initial rho = 1
initial m = [0, 0]
initial E = 2.5
wave_speed = norm(u) + c
