# Maxwell's equations in 2D, transverse magnetic mode (Hx, Hy, Ez), in a
# heterogeneous medium: eps dEz/dt = curl(H) = dx Hy - dy Hx and
# mu dH/dt = -curl(Ez) = -[dy Ez, -dx Ez] (Hesthaven & Warburton 2008,
# Sec. 6.5), with eps and mu given per element by problem.cfg's
# [coefficients] (they jump across element faces, never inside an element).
dim 2
fields H[2] Ez
coefficients eps > 0, mu > 0
# e1, e2: the permittivities of the exact solution below, which must match
# [coefficients] (eps = e1 for x < 0, eps = e2 for x > 0, mu = 1); w the
# angular frequency; alpha = 1 upwind, alpha = 0 the impedance-weighted
# central flux (energy conserving)
params e1 = 1, e2 = 2.25, w = 2*pi, alpha = 1
rhs H = -curl(Ez)/mu
rhs Ez = curl(H)/eps
# Upwind flux across a material interface (Hesthaven & Warburton 2008,
# Sec. 6.5; Mohammadian, Shankar & Hall 1991): the traces H*, Ez* are the
# exact solution of the Riemann problem in the normal direction, with the
# impedances Z = sqrt(mu/eps) of the two sides.  With s = cross(n, H) (the
# tangential H) and the jump [q] = q.int - q.ext,
#   Ez* = (Ze Ez.int + Zi Ez.ext)/(Zi + Ze) - alpha Zi Ze [s]/(Zi + Ze)
#   s*  = (Zi s.int + Ze s.ext)/(Zi + Ze) - alpha [Ez]/(Zi + Ze)
# and the flux is the surface form with the interior's coefficients:
# cross(n, H*)/eps.int = s*/eps.int, -cross(n, Ez*)/mu.int.  Equal sides
# (Zi = Ze) give the shipped maxwell2d_tm flux (avg, jump/2) for eps = mu = 1.
let Zi = sqrt(mu.int/eps.int)
let Ze = sqrt(mu.ext/eps.ext)
let s = cross(n, H)
let Ezs = (Ze*Ez.int + Zi*Ez.ext - alpha*Zi*Ze*jump(s))/(Zi + Ze)
let ss = (Zi*s.int + Ze*s.ext - alpha*jump(Ez))/(Zi + Ze)
flux H = -cross(n, Ezs)/mu.int
flux Ez = ss/eps.int
# Normal incidence from the left (x < 0) on the interface x = 0 (mu = 1,
# c = 1/sqrt(eps), Z = sqrt(mu/eps) = 1/sqrt(eps)): with f(u) = sin(w u),
#   x < 0: Ez = f(x/c1 - t) + R f(-x/c1 - t),  Hy = (-f(x/c1 - t) + R f(-x/c1 - t))/Z1
#   x > 0: Ez = T f(x/c2 - t),                  Hy = -T f(x/c2 - t)/Z2
# (a wave f(x - c t) has Hy = -Ez/Z, one f(x + c t) has Hy = +Ez/Z: mu dHy/dt
# = dx Ez), Hx = 0; Ez and Hy continuous at x = 0 give
#   R = (Z2 - Z1)/(Z1 + Z2) = -0.2,  T = 2 Z2/(Z1 + Z2) = 0.8.
let c1 = 1/sqrt(e1)
let c2 = 1/sqrt(e2)
let Z1 = 1/sqrt(e1)
let Z2 = 1/sqrt(e2)
let R = (Z2 - Z1)/(Z1 + Z2)
let T = 2*Z2/(Z1 + Z2)
let left = x[0] < 0
let Ew = left ? sin(w*(x[0]/c1 - t)) + R*sin(w*(-x[0]/c1 - t)) : T*sin(w*(x[0]/c2 - t))
let Hw = (left ? (-sin(w*(x[0]/c1 - t)) + R*sin(w*(-x[0]/c1 - t)))/Z1
                : -T*sin(w*(x[0]/c2 - t))/Z2)
# x = +-1: the exterior state is the exact solution, so the upwind flux lets
# the outgoing waves leave and brings the incoming one in exactly
boundary open { H = [0, Hw]; Ez = Ew }
initial H = [0, Hw]
initial Ez = Ew
exact H = [0, Hw]
exact Ez = Ew
# the electromagnetic energy density, integrated (problems/solver/quantities.h)
integral energy = 0.5*(eps*Ez^2 + mu*dot(H, H))

# the largest signal speed at a node (the largest |eigenvalue| of the flux
# Jacobian over directions), for the time step without [time] wave_speed:
# the speed of light 1/sqrt(eps mu), eps and mu coefficients
wave_speed = 1/sqrt(eps*mu)
