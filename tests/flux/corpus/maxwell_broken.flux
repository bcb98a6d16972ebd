dim 2
fields E[3] H[3]
params eps = 1, mu = 1, alpha = 1
rhs E = curl(H)/eps
rhs H = -curl(E)/mu
flux E = cross(n, avg(H))/eps + alpha/2*cross(n, cross(n, jump(E)))
