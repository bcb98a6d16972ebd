# expect: dim
dim 3
fields u
params ax = 1, ay = 0.5, az = 0
let a = [ax, ay, az]
rhs u = -div(a*u)
flux u = -(dot(a, n)*avg(u) + abs(dot(a, n))/2*jump(u))
boundary inflow { u = 0 }
initial u = sin(2*pi*x[0])
