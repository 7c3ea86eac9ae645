"""The ground floor: helpers that import nothing of the project above them.

Compiling (``jit``, ``hints``, ``jitcache``, ``compile_checkpoint``), named layouts (``layout``),
the data codec, clocks and budgets (``clock``, ``budget``, ``hotclock``, ``watch``, ``batches``),
bounds and command-line plumbing (``bounds``, ``cli``), atomic writes, the process backends and
the bundling of modules into one file (``bundle``, ``bundle_file``, ``bundle_loader``). ``tests/test_layout.py`` holds
the floors.
"""
