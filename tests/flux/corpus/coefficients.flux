dim 2
fields u E[2]
params a = 2
coefficients kap > 0, sig >= -1 <= 1, wgt < 3 rho
let Zk = sqrt(kap)
let fk = kap*u
rhs u = -div(fk*[1, x[1]])/rho + sig*u
rhs E = curl(u)/kap
flux u = -dot(n, avg(fk*[1, x[1]]))/rho.int
flux E = cross(n, avg(u))/kap.int - a*Zk.int*jump(E) + avg(kap)*0
boundary wall { u = u.int*kap.int; E = -E.int }
initial u = 1 + x[0]
initial E = [x[1], 2]
integral ku = kap*u + wgt
