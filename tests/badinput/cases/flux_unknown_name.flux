# expect: flux_unknown_name.flux:
dim 2
fields u
params ax = 1, ay = 0.5
let a = [ax, ay]
rhs u = -div(a*v)
flux u = -(dot(a, n)*avg(u) + abs(dot(a, n))/2*jump(u))
boundary inflow { u = 0 }
initial u = sin(2*pi*x[0])
