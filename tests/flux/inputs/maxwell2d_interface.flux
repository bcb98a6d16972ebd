# Maxwell's equations in 2D, TM mode, in a medium whose permittivity eps and
# permeability mu jump between elements (coefficients given in problem.cfg):
#   eps dEz/dt = curl(H) = dx Hy - dy Hx,  mu dH/dt = -curl(Ez) = [-dy Ez, dx Ez].
# Upwind flux for heterogeneous media (Hesthaven & Warburton 2008, Sec. 6.5;
# Mohammadian, Shankar & Hall 1991): with q = cross(n, H) and the impedance
# Z = sqrt(mu/eps), the Riemann problem across the face has the states
#   q* = (Z.int q.int + Z.ext q.ext + Ez.ext - Ez.int)/(Z.int + Z.ext)
#   Ez* = (Ez.int/Z.int + Ez.ext/Z.ext + q.ext - q.int)/(1/Z.int + 1/Z.ext)
# and the numerical fluxes are the surface forms of the volume terms taken
# at them, divided by the element's own eps or mu.
dim 2
fields Ez H[2]
coefficients eps > 0, mu > 0
let Z = sqrt(mu/eps)
let q = cross(n, H)
rhs Ez = curl(H)/eps
rhs H = -curl(Ez)/mu
flux Ez = (Z.int*q.int + Z.ext*q.ext + Ez.ext - Ez.int)/((Z.int + Z.ext)*eps.int)
flux H = -cross(n, (Ez.int/Z.int + Ez.ext/Z.ext + q.ext - q.int)/(1/Z.int + 1/Z.ext))/mu.int
boundary pec { Ez = -Ez.int; H = H.int }
# a state with every component nonzero, for the consistency check
initial Ez = 1 + x[0]
initial H = [x[1] - 0.3, 0.5 + x[0]*x[1]]
