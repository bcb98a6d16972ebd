fields u
rhs u = sin(1, 2) + /
(((
]]
