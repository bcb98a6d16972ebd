fields u
rhs u = -dx(u)
flux u = -(n[0] > 0 ? n[0]*u.int : n[0]*u.ext)
boundary b { u = u.int }
initial u = sin(pi*x[0])
