# Maxwell's equations in 2D, transverse magnetic mode (Hx, Hy, Ez), as in
# Hesthaven & Warburton (2008), Sec. 6.5: dH/dt = -curl(Ez)/mu with the 2D
# curl of a scalar [dy Ez, -dx Ez], dEz/dt = curl(H)/eps = (dx Hy - dy Hx)/eps.
dim 2
fields H[2] Ez
params eps = 1, mu = 1, alpha = 1, mx = 1, my = 1
rhs H = -curl(Ez)/mu
rhs Ez = curl(H)/eps
flux H = -cross(n, avg(Ez))/mu + alpha/2*cross(n, cross(n, jump(H)))
flux Ez = cross(n, avg(H))/eps - alpha/2*jump(Ez)
boundary pec { H = H.int; Ez = -Ez.int }
# Resonant mode of the PEC square [0,1]^2 (eps = mu = 1).
let w = pi*sqrt(mx^2 + my^2)
initial H = [0, 0]
initial Ez = sin(mx*pi*x[0])*sin(my*pi*x[1])
exact H = [-my*pi/w*sin(mx*pi*x[0])*cos(my*pi*x[1])*sin(w*t),
            mx*pi/w*cos(mx*pi*x[0])*sin(my*pi*x[1])*sin(w*t)]
exact Ez = sin(mx*pi*x[0])*sin(my*pi*x[1])*cos(w*t)
# the electromagnetic energy (problems/solver/quantities.h): 1/8 for this mode
# (mx, my any), decaying slowly under the upwind flux (alpha > 0)
integral energy = 0.5*(mu*dot(H, H) + eps*Ez^2)

# the largest signal speed at a node (the largest |eigenvalue| of the flux
# Jacobian over directions), for the time step without [time] wave_speed:
# the speed of light 1/sqrt(eps mu)
wave_speed = 1/sqrt(eps*mu)
