# Maxwell's equations in 3D, non-dimensional: dE/dt = curl(H)/eps, dH/dt = -curl(E)/mu.
# Flux: central plus a penalty on the tangential jumps (alpha = 1: upwind for
# eps = mu = 1, alpha = 0: central), Hesthaven & Warburton (2008), Sec. 6.5.
# Exact solution: a TM mode of the PEC cube [0,1]^3, constant in z.
dim 3
fields E[3] H[3]
params eps = 1, mu = 1, alpha = 1
rhs E = curl(H)/eps
rhs H = -curl(E)/mu
flux E = cross(n, avg(H))/eps + alpha/2*cross(n, cross(n, jump(E)))
flux H = -cross(n, avg(E))/mu + alpha/2*cross(n, cross(n, jump(H)))
boundary pec { E = -E.int; H = H.int }     # perfect electric conductor
let w = sqrt(2)*pi
initial E = [0, 0, sin(pi*x[0])*sin(pi*x[1])*cos(w*t)]
initial H = [-pi/w*sin(pi*x[0])*cos(pi*x[1])*sin(w*t),
              pi/w*cos(pi*x[0])*sin(pi*x[1])*sin(w*t), 0]
exact E = [0, 0, sin(pi*x[0])*sin(pi*x[1])*cos(w*t)]
exact H = [-pi/w*sin(pi*x[0])*cos(pi*x[1])*sin(w*t),
            pi/w*cos(pi*x[0])*sin(pi*x[1])*sin(w*t), 0]
# the electromagnetic energy (problems/solver/quantities.h): 1/8 for this mode,
# decaying slowly under the upwind flux (alpha > 0)
integral energy = 0.5*(eps*dot(E, E) + mu*dot(H, H))

# the largest signal speed at a node (the largest |eigenvalue| of the flux
# Jacobian over directions), for the time step without [time] wave_speed:
# the speed of light 1/sqrt(eps mu)
wave_speed = 1/sqrt(eps*mu)
