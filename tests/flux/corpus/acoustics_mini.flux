dim 2
fields p v[2]
let c = 1
rhs p = -div(v)
rhs v = -grad(p)
flux p = -(dot(n, avg(v)) + c/2*jump(p))
flux v = -(n*avg(p) + c/2*jump(v))
boundary wall { p = p.int; v = v.int - 2*dot(v.int, n)*n }
initial p = x[0] < 0.5 ? 1 : 0
initial v = [0, 0]
exact p = 2^-2^3 - -1
source v = [min(1, 2, 3), max(x[1], t)]
