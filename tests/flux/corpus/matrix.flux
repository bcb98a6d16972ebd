dim 3
fields q[3]
let M = [[1,2,3],[4,5,6],[7,8,9]]
let F = [q, 2*q, q*norm(q)]
rhs q = -div(F) + M[1]
flux q = -(avg([dot(F[0], n), dot(F[1], n), dot(F[2], n)]) + jump(q)/2)
initial q = [atan2(x[1], x[0]), floor(x[2]), pow(abs(x[0]), 1.5)]
