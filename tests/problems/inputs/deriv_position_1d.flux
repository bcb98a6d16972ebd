# Shallow water over a bathymetry b(x) in the well-balanced form
# (tests/problems/deriv_position.c): the non-conservative product g*h*dx(b),
# a field times the derivative of a function of x, and the lake at rest
# h + b = 1, hu = 0, which the scheme must keep exactly: -dx(g h^2/2) and
# -g h dx(b) cancel node by node (h^2 of degree 2 is differentiated exactly
# for N >= 2), and the flux's -g h.int n b term equals the surface form of
# -g h dx(b) on both sides (b is continuous), so nothing is lifted.
dim 1
fields h hu
params g = 9.81
let b = 0.2*x[0] + 0.1
let u = hu/h
let c = sqrt(g*h)
rhs h = -dx(hu)
rhs hu = -dx(hu*u + 0.5*g*h*h) - g*h*dx(b)
let lam = max(abs(u.int) + c.int, abs(u.ext) + c.ext)
flux h = -(avg(hu)*n[0] + lam/2*jump(h))
flux hu = -(avg(hu*u + 0.5*g*h*h)*n[0] + lam/2*jump(hu)) - g*h.int*n[0]*b
boundary wall { h = h.int; hu = hu.int }
initial h = 1 - b
initial hu = 0
