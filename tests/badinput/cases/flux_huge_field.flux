# expect: flux_huge_field.flux:
dim 2
fields u[100000000]
rhs u = u
initial u = 0
