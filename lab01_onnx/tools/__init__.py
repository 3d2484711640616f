"""The warm-up guide's tools: fusions, whatran, memplan, customop (and their graph helpers)."""
