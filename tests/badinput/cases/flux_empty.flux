# expect: flux_empty.flux
