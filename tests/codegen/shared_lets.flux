# Lets that use lets twice (m12 expands to 2^12 uses of x[0], p12 to 2^12
# of u): written inline, the expressions would pass DG_EMIT_INLINE_MAX, so
# the generator writes them with temporaries (operators/emit_expr.c).  The
# 1e-30 factors keep the solution that of plain advection.
dim 2
fields u
let m0 = x[0]
let m1 = m0*m0
let m2 = m1*m1
let m3 = m2*m2
let m4 = m3*m3
let m5 = m4*m4
let m6 = m5*m5
let m7 = m6*m6
let m8 = m7*m7
let m9 = m8*m8
let m10 = m9*m9
let m11 = m10*m10
let m12 = m11*m11
let p0 = u
let p1 = p0*p0
let p2 = p1*p1
let p3 = p2*p2
let p4 = p3*p3
let p5 = p4*p4
let p6 = p5*p5
let p7 = p6*p6
let p8 = p7*p7
let p9 = p8*p8
let p10 = p9*p9
let p11 = p10*p10
let p12 = p11*p11
rhs u = -dx(u) - 1e-30*p12
flux u = -(n[0]*avg(u) + abs(n[0])/2*jump(u)) + 1e-30*avg(p12)
boundary wall { u = u.int + 1e-30*p12.int }
initial u = sin(2*pi*x[0]) + 1e-30*m12
exact u = sin(2*pi*(x[0]-t)) + 1e-30*m12
