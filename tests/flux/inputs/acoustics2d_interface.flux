# Linear acoustics in a medium of piecewise density rho and sound speed c
# (coefficients given in problem.cfg): dp/dt = -K div(v), rho dv/dt = -grad(p),
# K = rho c^2.  Upwind flux from the Riemann problem along n (LeVeque 2002,
# Sec. 9.9, heterogeneous media): with vn = dot(n, v) and the impedance Z = rho c,
#   vn* = (Z.int vn.int + Z.ext vn.ext + p.int - p.ext)/(Z.int + Z.ext)
#   p*  = (Z.ext p.int + Z.int p.ext + Z.int Z.ext (vn.int - vn.ext))/(Z.int + Z.ext)
# and the fluxes are the surface forms of the volume terms at those states,
# with the element's own rho and c.
dim 2
fields p v[2]
coefficients rho > 0, c > 0
let Z = rho*c
let vn = dot(n, v)
rhs p = -rho*c^2*div(v)
rhs v = -grad(p)/rho
flux p = -rho.int*c.int^2*(Z.int*vn.int + Z.ext*vn.ext + p.int - p.ext)/(Z.int + Z.ext)
flux v = -n*(Z.ext*p.int + Z.int*p.ext + Z.int*Z.ext*(vn.int - vn.ext))/((Z.int + Z.ext)*rho.int)
boundary wall { p = p.int; v = v.int - 2*dot(v.int, n)*n }    # rigid wall: v.n = 0
# a state with every component nonzero, for the consistency check
initial p = 1 + x[0]*x[1]
initial v = [0.5 - x[1], 0.25 + x[0]]
