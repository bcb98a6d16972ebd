# expect: the limit for a file
# Each let stays under the limit per component, but the file writes the
# largest one out in 16 statements: past the bound on the whole file.
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
let m13 = m12*m12
let m14 = m13*m13
let m15 = m14*m14
rhs u = -dx(u)
flux u = -(n[0]*avg(u) + abs(n[0])/2*jump(u))
boundary b0 { u = m15 }
boundary b1 { u = m15 }
boundary b2 { u = m15 }
boundary b3 { u = m15 }
boundary b4 { u = m15 }
boundary b5 { u = m15 }
boundary b6 { u = m15 }
boundary b7 { u = m15 }
boundary b8 { u = m15 }
boundary b9 { u = m15 }
boundary b10 { u = m15 }
boundary b11 { u = m15 }
initial u = m15
exact u = m15
source u = 0*m14
