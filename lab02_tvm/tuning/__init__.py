"""Lab 02 ``tuning/``: MetaSchedule — tasks, budget, tune, database, apply (build from it), serve (step 6), records, longrun, method, RPC."""
