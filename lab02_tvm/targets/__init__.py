"""Lab 02 ``targets/``: AArch64 cross-compilation (:mod:`.cross`) and CUDA built here, run on a GPU host (:mod:`.cuda_remote`)."""
