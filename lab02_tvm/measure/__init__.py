"""Lab 02 ``measure/``: compare (step 7), profile (Relax VM per kernel), roofline, peers, layout, method study."""
