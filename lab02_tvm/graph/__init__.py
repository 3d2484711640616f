"""Lab 02 steps 1-3: import into Relax (:mod:`.frontend`), struct info and counts (:mod:`.struct_info`),
the standard passes (:mod:`.passes`), and the tanh GELU rewrite for tuning (:mod:`.fast_gelu`)."""
