# expect: system
dim 2
fields u
params ax = 1, ay = 0.5
let a = [ax, ay]
rhs u = -div(a*u)
flux u = 0
boundary inflow { u = 0 }
initial u = system("touch pwned_flux_call")
