# Linear acoustics in 2D with piecewise density and sound speed:
#   dp/dt = -K div(v),  dv/dt = -grad(p)/rho,  K = rho c^2 (the bulk modulus),
# with rho and c given per element by problem.cfg's [coefficients] (they jump
# across element faces, never inside an element).  The coefficients are rho
# and c, not K and rho: the Godunov flux below needs the impedance Z = rho c,
# the CFL condition the speed c, and both are then products, not square
# roots; density and sound speed are also what tables of materials list.
dim 2
fields p v[2]
coefficients rho > 0, c > 0
# the exact solution's media, which must match [coefficients] (rho = r1, c =
# s1 for x < 0; rho = r2, c = s2 for x > 0); w the angular frequency; alpha
# = 1 upwind (Godunov), alpha = 0 the impedance-weighted central flux
params r1 = 1, s1 = 1, r2 = 3, s2 = 0.5, w = 2*pi, alpha = 1
rhs p = -rho*c^2*div(v)
rhs v = -grad(p)/rho
# Godunov flux across a material interface (LeVeque 2002, Finite Volume
# Methods for Hyperbolic Problems, Sec. 9.9): the traces p*, vn* are the
# exact solution of the Riemann problem in the normal direction, a wave
# leaving into each medium, with the impedances Zi = (rho c).int, Ze =
# (rho c).ext.  With vn = dot(n, v) and the jump [q] = q.int - q.ext,
#   p*  = (Ze p.int + Zi p.ext)/(Zi + Ze) + alpha Zi Ze [vn]/(Zi + Ze)
#   vn* = (Zi vn.int + Ze vn.ext)/(Zi + Ze) + alpha [p]/(Zi + Ze)
# and the flux is the surface form with the interior's coefficients,
# -K.int vn* and -n p*/rho.int (the tangential velocity, a wave of speed 0,
# takes no flux).  Equal sides give the shipped acoustics2d flux in p.
let Zi = rho.int*c.int
let Ze = rho.ext*c.ext
let vn = dot(n, v)
let ps = (Ze*p.int + Zi*p.ext + alpha*Zi*Ze*jump(vn))/(Zi + Ze)
let vns = (Zi*vn.int + Ze*vn.ext + alpha*jump(p))/(Zi + Ze)
flux p = -rho.int*c.int^2*vns
flux v = -n*ps/rho.int
# Normal incidence from the left (x < 0) on the interface x = 0: with f(u) =
# sin(w u) and Z = rho c,
#   x < 0: p = f(x/c1 - t) + R f(-x/c1 - t),  vx = (f(x/c1 - t) - R f(-x/c1 - t))/Z1
#   x > 0: p = T f(x/c2 - t),                  vx = T f(x/c2 - t)/Z2
# (a wave f(x - c t) has vx = p/Z, one f(x + c t) has vx = -p/Z: rho dvx/dt
# = -dx p), vy = 0; p and vx continuous at x = 0 give
#   R = (Z2 - Z1)/(Z1 + Z2) = 0.2,  T = 2 Z2/(Z1 + Z2) = 1.2
# (rho2 = 3, c2 = 0.5: rho, c, K and Z all jump; rho2 = 2 would match the
# impedances and reflect nothing).
let Z1 = r1*s1
let Z2 = r2*s2
let R = (Z2 - Z1)/(Z1 + Z2)
let T = 2*Z2/(Z1 + Z2)
let left = x[0] < 0
let pw = left ? sin(w*(x[0]/s1 - t)) + R*sin(w*(-x[0]/s1 - t)) : T*sin(w*(x[0]/s2 - t))
let uw = (left ? (sin(w*(x[0]/s1 - t)) - R*sin(w*(-x[0]/s1 - t)))/Z1
                : T*sin(w*(x[0]/s2 - t))/Z2)
# x = +-1: the exterior state is the exact solution, so the Godunov flux lets
# the outgoing waves leave and brings the incoming one in exactly
boundary open { p = pw; v = [uw, 0] }
initial p = pw
initial v = [uw, 0]
exact p = pw
exact v = [uw, 0]
# the acoustic energy density p^2/(2K) + rho |v|^2/2, integrated
integral energy = 0.5*(p^2/(rho*c^2) + rho*dot(v, v))

# the largest signal speed at a node (the largest |eigenvalue| of the flux
# Jacobian over directions), for the time step without [time] wave_speed:
# the sound speed, a coefficient
wave_speed = c
