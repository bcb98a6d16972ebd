# expect: flux_empty.flux:1:1: error: empty file
