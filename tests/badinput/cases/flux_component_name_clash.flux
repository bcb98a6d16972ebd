# expect: which snapshots write as 'q_0' ... 'q_3', but another field is named 'q_2'
# Snapshots write a field of 4 components as scalars q_0 .. q_3: a field
# q_2 beside it would be a second dataset of one name.
dim 2
fields q[4] q_2
rhs q = -dx(q)
rhs q_2 = -dx(q_2)
flux q = -(n[0]*avg(q) + abs(n[0])/2*jump(q))
flux q_2 = -(n[0]*avg(q_2) + abs(n[0])/2*jump(q_2))
initial q = [sin(2*pi*x[0]), 0, 0, 1]
initial q_2 = 0
