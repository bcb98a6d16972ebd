# Inviscid Burgers in 1D with a Rusanov flux and no wave_speed declaration
# (problems.cfg_no_wave_speed_lam: without [time] wave_speed the run must
# stop and name this lam, which is a speed of both traces, not guess it).
dim 1
fields u
rhs u = -dx(u^2/2)
let lam = max(abs(u.int), abs(u.ext))
flux u = -(n[0]*avg(u^2/2) + lam/2*jump(u))
boundary wall { u = u.int }
initial u = 1 + 0.5*sin(2*pi*x[0])
