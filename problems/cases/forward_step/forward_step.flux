# Woodward & Colella (1984), the Mach 3 forward-facing step: the compressible
# Euler equations (conserved rho, m = rho u, E, gamma = 1.4) in the channel of
# forward_step.geo, filled at t = 0 with the inflow state rho = 1.4, u = 3,
# p = 1 (c = 1: Mach 3), which enters at x = 0; reflecting walls; the outflow
# (supersonic there at all times) takes the interior state.  Shock
# capturing as sod2d.flux: the Persson-Peraire sensor of rho ([shock]) writes
# the artificial viscosity av, which enters every equation as div(av grad q)
# (LDG), and the positivity limiter keeps rho and p positive (Zhang & Shu
# 2010; the expansion around the step's corner comes close to vacuum).
dim 2
fields rho m[2] E
params gamma = 1.4, rho0 = 1.4, u0 = 3, p0 = 1
coefficients av >= 0
let u = m/rho
let p = (gamma - 1)*(E - 0.5*dot(m, u))
let c = sqrt(gamma*abs(p)/rho)
rhs rho = -div(m) + div(av*grad(rho))
rhs m = -div([m[0]*u + [p, 0], m[1]*u + [0, p]]) + div(av*grad(m))
rhs E = -div((E + p)*u) + div(av*grad(E))
let un = dot(u, n)
let lam = max(abs(un.int) + c.int, abs(un.ext) + c.ext)
flux rho = -(avg(rho*un) + lam/2*jump(rho)) + dot(ldg(av*grad(rho)), n)
flux m = -(avg(m*un + p*n) + lam/2*jump(m)) + dot(ldg(av*grad(m)), n)
flux E = -(avg((E + p)*un) + lam/2*jump(E)) + dot(ldg(av*grad(E)), n)
let E0 = p0/(gamma - 1) + 0.5*rho0*u0^2
# x = 0: supersonic inflow, every characteristic enters: the state imposed
boundary inflow { rho = rho0; m = [rho0*u0, 0]; E = E0
  grad(rho) = grad(rho).int; grad(m) = grad(m).int; grad(E) = grad(E).int }
# x = 3: supersonic outflow, every characteristic leaves: the interior state
boundary outflow { rho = rho.int; m = m.int; E = E.int
  grad(rho) = grad(rho).int; grad(m) = grad(m).int; grad(E) = grad(E).int }
# the floor, the step and the ceiling: slip walls (the normal momentum
# mirrored), and no artificial-viscosity flux through them: the gradients'
# normal parts mirrored (the average's normal part is zero; with the
# interior gradients the viscous term would carry mass through the wall
# wherever the sensor fires there)
boundary wall { rho = rho.int; m = m.int - 2*dot(m.int, n)*n; E = E.int
  grad(rho) = grad(rho).int - 2*dot(grad(rho).int, n)*n
  grad(m) = grad(m).int - 2*[dot(grad(m[0]).int, n)*n, dot(grad(m[1]).int, n)*n]
  grad(E) = grad(E).int - 2*dot(grad(E).int, n)*n }
initial rho = rho0
initial m = [rho0*u0, 0]
initial E = E0

# the largest signal speed at a node, for the time step without [time] wave_speed
wave_speed = norm(u) + c
