# expect: expands to 118097 operations per component
# flux_let_chain_wide: each let uses the one above 3 times, so the lets
# written out in place double (or triple) per line: 2^30 operations from 1 kB.
dim 2
fields u
let m0 = x[0]
let m1 = m0*m0*m0
let m2 = m1*m1*m1
let m3 = m2*m2*m2
let m4 = m3*m3*m3
let m5 = m4*m4*m4
let m6 = m5*m5*m5
let m7 = m6*m6*m6
let m8 = m7*m7*m7
let m9 = m8*m8*m8
let m10 = m9*m9*m9
let m11 = m10*m10*m10
let m12 = m11*m11*m11
let m13 = m12*m12*m12
let m14 = m13*m13*m13
let m15 = m14*m14*m14
let m16 = m15*m15*m15
let m17 = m16*m16*m16
let m18 = m17*m17*m17
let m19 = m18*m18*m18
let m20 = m19*m19*m19
let m21 = m20*m20*m20
let m22 = m21*m21*m21
let m23 = m22*m22*m22
let m24 = m23*m23*m23
let m25 = m24*m24*m24
let m26 = m25*m25*m25
let m27 = m26*m26*m26
let m28 = m27*m27*m27
let m29 = m28*m28*m28
rhs u = -dx(u)
flux u = -(n[0]*avg(u) + abs(n[0])/2*jump(u))
initial u = m29
exact u = m29
