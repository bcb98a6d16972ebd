# second-order terms: lifted gradients of lets, ldg fluxes, grad(NAME) boundaries
dim 2
fields rho m[2] E
params gamma = 1.4, mu = 6.25e-4, Pr = 0.71, tau = 0.1
let u = m/rho
let p = (gamma - 1)*(E - 0.5*dot(m, u))
let T = p/rho
let S = mu*(grad(u) + transpose(grad(u))) - 2/3*mu*trace(grad(u))*[[1, 0], [0, 1]]
let qh = mu*gamma/Pr/(gamma - 1)*grad(T)
rhs rho = -div(m)
rhs m = -div([m[0]*u + [p, 0], m[1]*u + [0, p]] - S)
rhs E = -div((E + p)*u - dot(S, u) - qh)
let un = dot(u, n)
let c = sqrt(gamma*p/rho)
let lam = max(abs(un.int) + c.int, abs(un.ext) + c.ext)
flux rho = -(avg(rho*un) + lam/2*jump(rho))
flux m = -(avg(m*un + p*n) + lam/2*jump(m)) + dot(ldg(S), n) - tau*jump(m)
flux E = -(avg((E + p)*un) + lam/2*jump(E)) + dot(ldg(dot(S, u) + qh), n) - tau*jump(E)
boundary wall { rho = rho.int; m = -m.int; E = E.int
  grad(u) = grad(u).int; grad(T) = grad(T).int - 2*dot(grad(T).int, n)*n }
initial rho = 1
initial m = [sin(x[1]), 0]
initial E = 2.5
