# A vector field of 4 components (more than an XDMF vector holds): snapshots
# write it as the scalars q_0 .. q_3 (problems/run.c), at t = 0 and the end.
dim 2
fields q[4]
rhs q = -dx(q)
flux q = -(n[0]*avg(q) + abs(n[0])/2*jump(q))
initial q = [sin(2*pi*x[0]), cos(2*pi*x[0]), 0, 1]
exact q = [sin(2*pi*(x[0] - t)), cos(2*pi*(x[0] - t)), 0, 1]
